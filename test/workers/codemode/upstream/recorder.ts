/**
 * Test stand-ins for remote upstreams that record every HTTP request they receive (credential,
 * session and JSON-RPC method), so tests can count what a `code` run costs upstream.
 */
import { createLegacyMcpHandler, createMcpHandler } from "../../../../src/index";
import { v1Upstream, v2Upstream } from "../fixtures";

/** One upstream HTTP request. `what` is `POST <method>` (or `POST response`), `GET`, `DELETE`. */
export interface Seen {
  auth: string | null;
  session: string | null;
  what: string;
  /**
   * Sent while the request that opened the current round trip was still unanswered: it shares
   * that round trip (sent alongside, not after an answer).
   */
  concurrent?: boolean;
}

/**
 * The sequential round trips among `seen`: requests that opened one (see {@link Seen.concurrent}).
 * @param seen - requests, as recorded
 */
export function roundTrips(seen: readonly Seen[]): number {
  return seen.filter((s) => !s.concurrent).length;
}

/**
 * A simulated network delay per request: requests sent together (in the same few milliseconds)
 * then reliably overlap, as they would over a real network, so round trips can be counted.
 */
const LATENCY_MS = 10;

/**
 * Wraps a handler so each recorded request notes whether it opened a round trip. The entry is
 * recorded (and its round trip decided) synchronously on arrival, so concurrent requests keep
 * their sending order; the handler gets the request's own entry.
 */
function tracking(
  seen: Seen[],
  handle: (request: Request, entry: Seen) => Promise<Response>,
): (request: Request) => Promise<Response> {
  let leadInFlight = false;
  return async (request) => {
    const lead = !leadInFlight;
    if (lead) leadInFlight = true;
    const entry = record(request, seen, !lead);
    try {
      await describeRequest(request, entry);
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
      return await handle(request, entry);
    } finally {
      if (lead) leadInFlight = false;
    }
  };
}

/** A fetch that serves an upstream and records each request in `seen`. */
export type UpstreamFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

function record(request: Request, seen: Seen[], concurrent: boolean): Seen {
  const entry: Seen = {
    auth: request.headers.get("authorization"),
    session: request.headers.get("mcp-session-id"),
    what: request.method,
    concurrent,
  };
  seen.push(entry);
  return entry;
}

/** Fills in a POST's JSON-RPC method(s). */
async function describeRequest(request: Request, entry: Seen): Promise<void> {
  if (request.method !== "POST") return;
  const body = (await request.clone().json()) as { method?: string } | { method?: string }[];
  entry.what = `POST ${(Array.isArray(body) ? body : [body]).map((m) => m.method ?? "response").join(",")}`;
}

/** A 2026-07-28 upstream (SDK v2 server behind `createMcpHandler`). */
export function recordedModernUpstream(seen: Seen[]): UpstreamFetch {
  const handler = createMcpHandler(v2Upstream);
  const serve = tracking(seen, (request) => handler.fetch(request));
  return (input, init) => serve(new Request(input, init));
}

/**
 * A 2025-era upstream that, like a real one, serves many sessions: each `initialize` starts a
 * new session (its own SDK v1 server instance); an unknown session id gets `404`.
 */
export function recordedLegacyUpstream(seen: Seen[]): UpstreamFetch {
  const serve = tracking(seen, legacySessions());
  return (input, init) => serve(new Request(input, init));
}

/**
 * An upstream speaking both eras, as a server in transition would: 2026-07-28 requests are
 * served statelessly; a 2025-era `initialize` opens a session (see {@link recordedLegacyUpstream}).
 * `sessions` lists the ids it issued and which of them were ended (`DELETE`).
 */
export function recordedDualEraUpstream(
  seen: Seen[],
  sessions: { issued: string[]; ended: string[] },
): UpstreamFetch {
  const modern = createMcpHandler(v2Upstream);
  const legacy = legacySessions();
  const serve = tracking(seen, async (request, entry) => {
    const session = request.headers.get("mcp-session-id");
    if (entry.what !== "POST initialize" && !session) return modern.fetch(request);
    const response = await legacy(request, entry);
    if (entry.what === "POST initialize")
      sessions.issued.push(response.headers.get("mcp-session-id")!);
    if (request.method === "DELETE" && response.ok) sessions.ended.push(session!);
    return response;
  });
  return (input, init) => serve(new Request(input, init));
}

/** Serves 2025-era sessions, one SDK v1 server instance each. */
function legacySessions(): (request: Request, entry: Seen) => Promise<Response> {
  const sessions = new Map<string, ReturnType<typeof createLegacyMcpHandler>>();
  return async (request, entry) => {
    const session = request.headers.get("mcp-session-id");
    if (entry.what === "POST initialize") {
      const handler = createLegacyMcpHandler(v1Upstream());
      const response = await handler.fetch(request);
      sessions.set(response.headers.get("mcp-session-id")!, handler);
      return response;
    }
    const handler = session ? sessions.get(session) : undefined;
    if (!handler)
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
        { status: 404 },
      );
    return handler.fetch(request);
  };
}

/** Forgets every session, as a restarted upstream would (wraps {@link recordedLegacyUpstream}). */
export function restartable(seen: Seen[]): { fetch: UpstreamFetch; restart(): void } {
  let current = recordedLegacyUpstream(seen);
  return {
    fetch: (input, init) => current(input, init),
    restart: () => {
      current = recordedLegacyUpstream(seen);
    },
  };
}
