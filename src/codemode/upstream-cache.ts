/**
 * Per-isolate state of one wrapped upstream: the cached tool list and, for a server instance,
 * the one shared connection. Building the code-mode server per request reads from here, so a
 * request never re-lists or reconnects unless the upstream said its tools changed (or, for
 * connections that cannot stay open across requests, the cache aged past `toolsTtlMs`).
 */
import type { Tool } from "@modelcontextprotocol/server";
import {
  isSharedUpstream,
  openUpstream,
  type CodeUpstream,
  type Negotiated,
  type UpstreamSession,
} from "./upstream-connection";

/** Options of {@link Upstream}. */
export interface UpstreamOptions {
  /** How long a tool list from a per-run connection stays fresh (default 5 minutes). */
  toolsTtlMs?: number;
}

/** The cached view of one upstream MCP server. */
export class Upstream {
  private sharedSession: Promise<UpstreamSession> | undefined;
  /** What the isolate's last remote connection negotiated (reused by the next one). */
  private negotiated: Negotiated | undefined;
  private toolList: Promise<Tool[]> | undefined;
  private listedAt = 0;
  private generation = 0;
  private readonly ttl: number;

  /**
   * @param upstream - the server to wrap
   * @param options - cache options
   */
  constructor(
    private readonly upstream: CodeUpstream,
    options: UpstreamOptions = {},
  ) {
    this.ttl = options.toolsTtlMs ?? 300_000;
  }

  /** Bumps on every tool-list change; lets derived caches know when to rebuild. */
  get version(): number {
    return this.generation;
  }

  /** The upstream's tools, listed once and reused until they change. */
  async tools(): Promise<Tool[]> {
    const stale = !isSharedUpstream(this.upstream) && Date.now() - this.listedAt > this.ttl;
    if (!this.toolList || stale) {
      this.listedAt = Date.now();
      const listing = this.listAll();
      this.toolList = listing;
      // A failed listing must not stick: the next request tries again.
      listing.catch(() => {
        if (this.toolList === listing) this.toolList = undefined;
      });
      if (stale) this.generation++;
    }
    return this.toolList;
  }

  /**
   * A connection for one run: the shared one for a server instance, a new one otherwise.
   * Close it with {@link Upstream.release}.
   */
  async session(): Promise<UpstreamSession> {
    if (!isSharedUpstream(this.upstream)) {
      const session = await openUpstream(this.upstream, () => this.invalidate(), this.negotiated);
      this.negotiated = session.negotiated;
      return session;
    }
    if (!this.sharedSession) {
      const opening = openUpstream(this.upstream, () => this.invalidate());
      this.sharedSession = opening;
      opening.catch(() => {
        if (this.sharedSession === opening) this.sharedSession = undefined;
      });
    }
    return this.sharedSession;
  }

  /**
   * Ends a session obtained from {@link Upstream.session} (no-op for the shared one).
   * @param session - the session to end
   */
  async release(session: UpstreamSession): Promise<void> {
    if (!session.shared) await session.close().catch(() => {});
  }

  /**
   * Forgets what earlier connections negotiated (the upstream lost the session, or refused the
   * adopted era), so the next connection runs its own handshake.
   */
  forgetNegotiation(): void {
    this.negotiated = undefined;
  }

  /** Forgets the tool list (called on `notifications/tools/list_changed`). */
  invalidate(): void {
    this.toolList = undefined;
    this.generation++;
  }

  private async listAll(): Promise<Tool[]> {
    const session = await this.session();
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await session.client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    } finally {
      await this.release(session);
    }
  }
}
