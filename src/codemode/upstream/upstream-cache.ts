/**
 * Per-isolate state of one wrapped upstream: the cached tool list and, for a server instance,
 * the one shared connection. Building the code-mode server per request reads from here, so a
 * request never re-lists or reconnects unless the upstream said its tools changed (or, for
 * connections that cannot stay open across requests, the cache aged past `toolsTtlMs`).
 * A remote upstream's reusable state (tool list, negotiation) is kept per authorization
 * context ({@link CallerScope}): callers sending different headers share none of it.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { SHARED_SCOPE, type CallerScope } from "./upstream-caller";
import { guessHolds, guessToolList, listEveryTool } from "./upstream-speculation";
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

/** What one authorization context has cached. */
interface ScopeState {
  /** What the context's last remote connection negotiated (reused by the next one). */
  negotiated?: Negotiated;
  toolList?: Promise<Tool[]>;
  listedAt: number;
}

/** Authorization contexts remembered per upstream; the least recently used is forgotten first. */
const MAX_SCOPES = 256;

/** The cached view of one upstream MCP server. */
export class Upstream {
  private sharedSession: Promise<UpstreamSession> | undefined;
  private readonly scopes = new Map<string, ScopeState>();
  /**
   * The era an earlier connection learned: `legacy` skips the probe; known either way, no
   * 2025-era `initialize` goes out alongside a probe.
   */
  private era: "modern" | "legacy" | undefined;
  /** Clean-up the upstream's handshakes left running (see UpstreamSession.background). */
  private readonly background = new Set<Promise<void>>();
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

  /**
   * The upstream's tools as `scope` sees them, listed once and reused until they change.
   * @param scope - the caller's authorization context (see upstream-caller.ts)
   */
  async tools(scope: CallerScope = SHARED_SCOPE): Promise<Tool[]> {
    const state = this.state(scope);
    const stale = !isSharedUpstream(this.upstream) && Date.now() - state.listedAt > this.ttl;
    if (!state.toolList || stale) {
      state.listedAt = Date.now();
      const listing = this.listAll(scope);
      state.toolList = listing;
      // A failed listing must not stick: the next request tries again.
      listing.catch(() => {
        if (state.toolList === listing) state.toolList = undefined;
      });
      if (stale) this.generation++;
    }
    return state.toolList;
  }

  /**
   * A connection for one run: the shared one for a server instance, a new one otherwise
   * (adopting what `scope`'s last connection negotiated). Close it with {@link Upstream.release}.
   * @param scope - the caller's authorization context (see upstream-caller.ts)
   * @param listing - the session is for a tool listing (which may be repeated, so its 2025-era
   *   handshake need not wait for `notifications/initialized` to be answered)
   */
  async session(scope: CallerScope = SHARED_SCOPE, listing = false): Promise<UpstreamSession> {
    if (!isSharedUpstream(this.upstream)) {
      const state = this.state(scope);
      const session = await openUpstream(this.upstream, () => this.invalidate(), {
        ...(state.negotiated ? { reuse: state.negotiated } : {}),
        ...(scope.headers ? { headers: scope.headers } : {}),
        ...(this.era ? { era: this.era } : {}),
        eagerInitialized: listing,
      });
      // A 2025-era server without sessions negotiates nothing reusable, but its era is known.
      const era = session.negotiated?.kind ?? session.client.getProtocolEra();
      if (era === "modern" || era === "legacy") this.era = era;
      if (session.background) {
        const cleanup = session.background;
        this.background.add(cleanup);
        void cleanup.then(() => this.background.delete(cleanup));
      }
      const keep =
        session.negotiated?.kind !== "legacy" ||
        !("url" in this.upstream) ||
        this.upstream.reuseSession !== false;
      state.negotiated = keep ? session.negotiated : undefined;
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
   * @param settle - also wait for clean-up earlier handshakes left running (at a run's end;
   *   not after a listing, whose run should not wait for it)
   */
  async release(session: UpstreamSession, settle = true): Promise<void> {
    if (!session.shared) await session.close().catch(() => {});
    if (settle) await Promise.all(this.background);
  }

  /**
   * Forgets what `scope`'s earlier connections negotiated (the upstream lost the session, or
   * refused the adopted era), so its next connection runs its own handshake.
   * @param scope - the caller's authorization context
   */
  forgetNegotiation(scope: CallerScope = SHARED_SCOPE): void {
    this.state(scope).negotiated = undefined;
  }

  /** Forgets every tool list (called on `notifications/tools/list_changed`). */
  invalidate(): void {
    for (const state of this.scopes.values()) state.toolList = undefined;
    this.generation++;
  }

  /** The state of `scope`, most recently used last (so the oldest is evicted first). */
  private state(scope: CallerScope): ScopeState {
    let state = this.scopes.get(scope.key);
    if (state) this.scopes.delete(scope.key);
    else state = { listedAt: 0 };
    this.scopes.set(scope.key, state);
    if (this.scopes.size > MAX_SCOPES) this.scopes.delete(this.scopes.keys().next().value!);
    return state;
  }

  private async listAll(scope: CallerScope): Promise<Tool[]> {
    // Nothing known yet about a remote upstream: list alongside the handshake, not after it.
    const guess =
      "url" in this.upstream && this.era !== "legacy" && !this.state(scope).negotiated
        ? guessToolList(this.upstream, scope.headers)
        : undefined;
    const session = await this.session(scope, true);
    try {
      const guessed = await guess;
      if (guessHolds(guessed, session.negotiated)) return guessed.tools;
      // The listing may overtake the `notifications/initialized` sent just before it, and a
      // strict server refuses requests before that notification: list again once it landed.
      const tools = await listEveryTool(session.client).catch(async (error: unknown) => {
        const notified = session.handshakeSettled();
        if (!notified) throw error;
        await notified.catch(() => {});
        return listEveryTool(session.client);
      });
      // No call may overtake the notification either: the run starts once it was answered.
      await session.handshakeSettled()?.catch(() => {});
      return tools;
    } finally {
      await this.release(session, false);
    }
  }
}
