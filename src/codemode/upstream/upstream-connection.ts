/**
 * Connections from code mode to the MCP server it wraps. Every kind of upstream is reached with
 * the SDK v2 `Client` (with era negotiation, so 2026-07-28 and 2025-era servers both work):
 *
 * - an SDK v2 or SDK v1 `McpServer` instance: connected once per isolate over an in-memory
 *   transport (one server instance cannot be connected to several transports);
 * - `{ server: () => McpServer }`: a fresh in-memory connection per run, so notifications from
 *   the upstream (logging) belong unambiguously to that run;
 * - `{ url, headers?, fetch?, reuseSession? }`: a remote Streamable HTTP endpoint, a client per
 *   run (Workers I/O cannot be shared across requests) that reuses what the isolate's first
 *   connection in the same authorization context negotiated ({@link Negotiated}), so a warm run
 *   sends only its own calls; it opens no stream (no list-changed subscription: the tool list
 *   refreshes by age; no 2025-era standalone GET stream: see upstream-fetch.ts). `headers` carry the upstream's auth (fixed, or per outer caller: see
 *   upstream-caller.ts) and are never shown to the sandbox; `fetch` lets a service binding or
 *   test reach the endpoint.
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
  type DiscoverResult,
} from "@modelcontextprotocol/client";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer as V2McpServer, type AuthInfo } from "@modelcontextprotocol/server";
import { CodeModeError } from "../../errors";
import { sameOriginRedirects } from "./same-origin-redirects";
import { upstreamFetch } from "./upstream-fetch";

/** A server instance code mode can connect to in memory. */
export type LocalMcpServer = V2McpServer | V1McpServer;

/** The outer request a `code` server is built for (what a `headers` function can read). */
export interface UpstreamCaller {
  /** The verified identity of the outer caller (OAuth provider props, or your auth in front). */
  authInfo?: AuthInfo;
  /** The outer HTTP request, when the handler passes it (`createMcpHandler` does). */
  request?: Request;
}

/** Headers for a remote upstream: fixed, or computed per outer caller. */
export type UpstreamHeaders =
  | Record<string, string>
  | ((caller: UpstreamCaller) => Record<string, string> | Promise<Record<string, string>>);

/** The MCP server that `codeMcpServer()` wraps. See the module comment for the kinds. */
export type CodeUpstream =
  | LocalMcpServer
  | { server: () => LocalMcpServer | Promise<LocalMcpServer> }
  | {
      url: string | URL;
      /**
       * Extra request headers, e.g. `{ authorization: "Bearer …" }`, or a function of the outer
       * caller returning them (`(caller) => ({ authorization: … })`). Sessions and tool lists
       * are kept per distinct set of headers, so callers with different credentials share none.
       */
      headers?: UpstreamHeaders;
      /** Custom fetch (a service binding's fetch, or a test's). */
      fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
      /**
       * Adopt a 2025-era upstream session across runs with the same headers (default true).
       * `false`: every run runs its own `initialize`, for an upstream that keeps per-session
       * state runs must not share. (A 2026-07-28 discover result holds no state; it is reused.)
       */
      reuseSession?: boolean;
    };

/**
 * What a remote upstream's connection negotiated, reusable by later connections of the isolate
 * in the same authorization context (the same headers): the 2026-07-28 `server/discover`
 * result, or a 2025-era session id with its protocol version. A reused 2025-era session is
 * shared by the runs sent with the same headers (documented in docs/library.md).
 */
export type Negotiated =
  | { kind: "modern"; discover: DiscoverResult }
  | { kind: "legacy"; sessionId: string; protocolVersion: string };

/** An open client connection to the upstream. */
export interface UpstreamSession {
  readonly client: Client;
  /** Whether the connection is shared by all runs of the isolate (never closed per run). */
  readonly shared: boolean;
  /**
   * Whether the upstream is an `McpServer` in this isolate (an instance or `{ server }`), whose
   * own tool handler has already checked each result against the tool's output schema.
   */
  readonly inProcess: boolean;
  /** What the connection negotiated (remote upstreams), for the next connection to reuse. */
  readonly negotiated?: Negotiated;
  /** Whether this connection adopted an earlier negotiation instead of its own handshake. */
  readonly reused: boolean;
  /**
   * The answer to what the handshake sent without waiting (the 2025-era
   * `notifications/initialized` of an `eagerInitialized` connection), `undefined` when nothing
   * was: settles when answered, rejects when refused.
   */
  handshakeSettled(): Promise<void> | undefined;
  /**
   * Clean-up the handshake left running (ending an unused early 2025-era session): awaited at
   * the end of a run, not before its calls. Never rejects.
   */
  readonly background?: Promise<void>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "code-mode-mcp", version: "0.1.0" };

/**
 * A remote upstream's fetch when the caller gives none: its headers (a library user's
 * `X-API-Key`, a cookie) go only to its own origin. `fetch` follows every redirect and drops
 * only `Authorization` on one to another origin, so the rest went with the request's body to
 * wherever the upstream redirected (same-origin-redirects.ts). A caller's own `fetch` decides
 * for itself (the product passes one wrapped the same way: app/endpoints.ts).
 */
const DEFAULT_FETCH = sameOriginRedirects((input, init) => fetch(input, init), {
  what: "the upstream MCP server",
  setting: "`upstream.url`",
});

/** What {@link openUpstream} knows of a remote upstream, and how it shakes hands. */
export interface OpenOptions {
  /** What an earlier connection in the same authorization context negotiated. */
  reuse?: Negotiated;
  /** The resolved headers of a remote upstream (see upstream-caller.ts). */
  headers?: Record<string, string>;
  /**
   * The upstream's era, when an earlier connection learned it: `legacy` skips the discover
   * probe; unknown (`undefined`) sends the 2025-era `initialize` alongside the probe.
   */
  era?: "modern" | "legacy";
  /**
   * A 2025-era handshake sends `notifications/initialized` without waiting for its answer (only
   * when the next request may be repeated if it overtakes it: a listing).
   */
  eagerInitialized?: boolean;
}

/**
 * Whether `upstream` is a server instance (connected once per isolate).
 * @param upstream - the configured upstream
 */
export function isSharedUpstream(upstream: CodeUpstream): upstream is LocalMcpServer {
  return upstream instanceof V2McpServer || upstream instanceof V1McpServer;
}

/**
 * Opens a client connection to `upstream`.
 * @param upstream - the configured upstream
 * @param onToolsChanged - called when the upstream announces `notifications/tools/list_changed`
 * @param options - what is known of a remote upstream and how to shake hands with it
 * @throws CodeModeError `upstream_invalid` for an unknown upstream kind, `upstream_unreachable`
 *   when the connection fails (the message never includes configured headers)
 */
export async function openUpstream(
  upstream: CodeUpstream,
  onToolsChanged: () => void,
  options: OpenOptions = {},
): Promise<UpstreamSession> {
  const { reuse, headers, era, eagerInitialized = false } = options;
  const shared = isSharedUpstream(upstream);
  const remote = !shared && "url" in upstream;
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: "auto" },
    // No debounce: invalidating the cached list is cheap, and the next request must see the change.
    // Remote connections listen to nothing: in 2026-07-28 that would open a stream per run.
    ...(remote
      ? {}
      : {
          listChanged: {
            tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() },
          },
        }),
  });
  let negotiated: Negotiated | undefined;
  let handshakeSettled = (): Promise<void> | undefined => undefined;
  let background: Promise<void> | undefined;
  try {
    if (shared || "server" in upstream) {
      const server = shared ? upstream : await upstream.server();
      if (!(server instanceof V2McpServer || server instanceof V1McpServer)) {
        throw new CodeModeError(
          "upstream_invalid",
          "codeMcpServer: `upstream.server()` must return an McpServer from @modelcontextprotocol/server or @modelcontextprotocol/sdk.",
        );
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      // SDK v1 and v2 servers accept the same transport shape; the client negotiates the era.
      await (server as V2McpServer).connect(serverSide);
      await client.connect(clientSide);
    } else if ("url" in upstream) {
      const url = new URL(upstream.url);
      // The era is unknown: the 2025-era `initialize` goes out alongside the probe.
      const early =
        reuse === undefined && era === undefined
          ? { url, clientInfo: CLIENT_INFO, ...(headers ? { headers } : {}) }
          : undefined;
      const shaped = upstreamFetch(upstream.fetch ?? DEFAULT_FETCH, eagerInitialized, early);
      handshakeSettled = shaped.initialized;
      const transport = new StreamableHTTPClientTransport(url, {
        ...(headers ? { requestInit: { headers } } : {}),
        fetch: shaped.fetch,
        ...(reuse?.kind === "legacy" ? { sessionId: reuse.sessionId } : {}),
      });
      try {
        negotiated = await connectRemote(client, transport, reuse, era === "legacy");
      } finally {
        // Unused when the probe found a 2026-07-28 server (or the connection failed).
        background = shaped.discardEarly();
      }
    } else {
      throw new CodeModeError(
        "upstream_invalid",
        "codeMcpServer: `upstream` must be an McpServer, `{ server: () => McpServer }` or `{ url, headers? }`.",
      );
    }
  } catch (error) {
    if (error instanceof CodeModeError) throw error;
    const where = !shared && "url" in upstream ? ` at ${new URL(upstream.url).origin}` : "";
    throw new CodeModeError(
      "upstream_unreachable",
      `Could not connect to the upstream MCP server${where}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return {
    client,
    shared,
    inProcess: !remote,
    negotiated,
    reused: reuse !== undefined,
    handshakeSettled,
    ...(background ? { background } : {}),
    close: () => client.close(),
  };
}

/**
 * Connects to a remote upstream, adopting `reuse` when given (no round trip for 2026-07-28; the
 * known session id for the 2025 era), and returns what the connection negotiated.
 */
async function connectRemote(
  client: Client,
  transport: StreamableHTTPClientTransport,
  reuse: Negotiated | undefined,
  knownLegacy: boolean,
): Promise<Negotiated | undefined> {
  if (reuse?.kind === "modern") {
    await client.connect(transport, { prior: { kind: "modern", discover: reuse.discover } });
    return reuse;
  }
  if (reuse?.kind === "legacy") {
    // With a session id the client skips `initialize`; the version header is ours to set.
    await client.connect(transport, { prior: { kind: "legacy" } });
    transport.setProtocolVersion(reuse.protocolVersion);
    return reuse;
  }
  // A known 2025-era upstream (a session it forgot, or another caller's) needs no discover probe.
  await client.connect(transport, knownLegacy ? { prior: { kind: "legacy" } } : {});
  const discover = client.getDiscoverResult();
  if (client.getProtocolEra() === "modern" && discover) return { kind: "modern", discover };
  const version = client.getNegotiatedProtocolVersion();
  return transport.sessionId && version
    ? { kind: "legacy", sessionId: transport.sessionId, protocolVersion: version }
    : undefined;
}

/**
 * Whether an upstream call failed because the upstream no longer knows the reused session: `404`
 * (the spec's answer for an ended session), or the SDK transport's `400` "Server not initialized"
 * (what a restarted SDK-based server answers). Either way the request was not processed, so it
 * may be sent again.
 * @param error - what the call threw
 */
export function isSessionGone(error: unknown): boolean {
  const e = error as { status?: unknown; data?: { status?: unknown }; message?: unknown } | null;
  const status = e?.status ?? e?.data?.status;
  if (status === 404) return true;
  return status === 400 && /server not initialized/i.test(String(e?.message ?? ""));
}
