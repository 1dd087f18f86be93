/**
 * The fetch under a remote upstream's transport, shaping what the SDK client sends so a cold
 * connection costs fewer round trips without changing what a correct server sees:
 *
 * - the 2025-era standalone stream (a `GET` without `Last-Event-ID`, opened after every
 *   `initialize`) is answered `405` here, as a server without that stream would: a run listens
 *   to nothing outside its own requests, so the stream would be a wasted connection;
 * - optionally, `notifications/initialized` is sent without waiting for its `202`: the spec asks
 *   the client to send it after the `initialize` result, and lets requests follow that result
 *   (it is a notification: nothing in its answer is needed). The next request (the tool listing)
 *   then shares its round trip. {@link UpstreamFetch.initialized} says when it was answered;
 * - optionally, when the SDK client probes an upstream of unknown era (`server/discover`), the
 *   2025-era `initialize` it would send next is sent alongside the probe; if the probe fails and
 *   the client sends exactly that `initialize`, it gets the early answer (one round trip saved on
 *   every cold 2025-era connection). If the probe finds a 2026-07-28 server instead,
 *   {@link UpstreamFetch.discardEarly} ends the session the early `initialize` may have opened
 *   (`DELETE`), as a 2025 client ends a session it no longer needs.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import { CodeModeError } from "../../errors";

/** A fetch function (the global one, a service binding's, or a test's). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch for one connection, and what it sent without waiting. */
export interface UpstreamFetch {
  fetch: FetchLike;
  /**
   * The answer to the `notifications/initialized` sent without waiting (`undefined` when none
   * was): settles when it was answered, rejects when the upstream refused it.
   */
  initialized(): Promise<void> | undefined;
  /**
   * Ends what an unused early `initialize` started (cancels its answer, `DELETE`s the session it
   * opened). Never throws; a no-op when none was sent or the client used it.
   */
  discardEarly(): Promise<void>;
}

/** What to send as the early `initialize` (see the module comment). */
export interface EarlyInitialize {
  url: URL;
  /** The connection's configured headers. */
  headers?: Record<string, string>;
  /** The client's name and version, as its own `initialize` carries them. */
  clientInfo: { name: string; version: string };
}

/** The JSON-RPC id the SDK client gives its `initialize` (its first request on a connection). */
const INITIALIZE_ID = 0;

/**
 * Wraps `base` for one connection (see the module comment).
 * @param base - the upstream's fetch
 * @param eagerInitialized - send `notifications/initialized` without waiting for its answer
 * @param early - send the 2025-era `initialize` alongside the era probe
 */
export function upstreamFetch(
  base: FetchLike,
  eagerInitialized: boolean,
  early?: EarlyInitialize,
): UpstreamFetch {
  let pending: Promise<void> | undefined;
  let earlyBody: Record<string, unknown> | undefined;
  let earlyAnswer: Promise<Response> | undefined;
  let earlyUsed = false;
  const fetch: FetchLike = (input, init) => {
    const method = (
      init?.method ?? (input instanceof Request ? input.method : "GET")
    ).toUpperCase();
    if (method === "GET") {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
      if (!headers.has("last-event-id"))
        return Promise.resolve(new Response(null, { status: 405 }));
    }
    if (eagerInitialized && method === "POST" && isInitializedNotification(init?.body)) {
      pending = base(input, init).then(async (response) => {
        await response.body?.cancel();
        if (!response.ok)
          throw new CodeModeError(
            "upstream_unreachable",
            `the upstream refused notifications/initialized (HTTP ${response.status})`,
          );
      });
      // Observed by initialized(); never an unhandled rejection meanwhile.
      pending.catch(() => {});
      return Promise.resolve(new Response(null, { status: 202 }));
    }
    if (early && method === "POST") {
      const message = jsonMessage(init?.body);
      if (message?.method === "server/discover" && !earlyBody) {
        earlyBody = {
          jsonrpc: "2.0",
          id: INITIALIZE_ID,
          method: "initialize",
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: early.clientInfo,
          },
        };
        earlyAnswer = base(early.url, {
          method: "POST",
          headers: {
            ...early.headers,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify(earlyBody),
        });
        earlyAnswer.catch(() => {});
      } else if (message?.method === "initialize" && earlyAnswer && !earlyUsed) {
        // Only the very message the early one was: otherwise the client's own goes out.
        earlyUsed = sameJson(message, earlyBody);
        if (earlyUsed) return earlyAnswer;
      }
    }
    return base(input, init);
  };
  const discardEarly = async () => {
    if (!earlyAnswer || earlyUsed || !early) return;
    earlyUsed = true;
    const response = await earlyAnswer.catch(() => undefined);
    await response?.body?.cancel().catch(() => {});
    const session = response?.ok ? response.headers.get("mcp-session-id") : null;
    if (!session) return;
    await base(early.url, {
      method: "DELETE",
      headers: { ...early.headers, "mcp-session-id": session },
    })
      .then((answer) => answer.body?.cancel())
      .catch(() => {});
  };
  return { fetch, initialized: () => pending, discardEarly };
}

/** A request body's single JSON-RPC message, if it is one. */
function jsonMessage(body: unknown): { method?: unknown } | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message = JSON.parse(body) as unknown;
    return message && typeof message === "object" && !Array.isArray(message) ? message : undefined;
  } catch {
    return undefined;
  }
}

/** Deep equality of two JSON values (key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** Whether a request body is the single `notifications/initialized` message. */
function isInitializedNotification(body: unknown): boolean {
  if (typeof body !== "string" || !body.includes("notifications/initialized")) return false;
  try {
    const message = JSON.parse(body) as { method?: unknown; id?: unknown };
    return message.method === "notifications/initialized" && message.id === undefined;
  } catch {
    return false;
  }
}
