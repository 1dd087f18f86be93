/**
 * Test stand-ins for remote upstreams that record every HTTP request they receive (credential,
 * session and JSON-RPC method), so tests can count what a `code` run costs upstream.
 */
import { createLegacyMcpHandler, createMcpHandler } from "../../../src/index";
import { v1Upstream, v2Upstream } from "./fixtures";

/** One upstream HTTP request. `what` is `POST <method>` (or `POST response`), `GET`, `DELETE`. */
export interface Seen {
  auth: string | null;
  session: string | null;
  what: string;
}

/** A fetch that serves an upstream and records each request in `seen`. */
export type UpstreamFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

async function record(request: Request, seen: Seen[]): Promise<void> {
  let what = request.method;
  if (request.method === "POST") {
    const body = (await request.clone().json()) as { method?: string } | { method?: string }[];
    what = `POST ${(Array.isArray(body) ? body : [body]).map((m) => m.method ?? "response").join(",")}`;
  }
  seen.push({
    auth: request.headers.get("authorization"),
    session: request.headers.get("mcp-session-id"),
    what,
  });
}

/** A 2026-07-28 upstream (SDK v2 server behind `createMcpHandler`). */
export function recordedModernUpstream(seen: Seen[]): UpstreamFetch {
  const handler = createMcpHandler(v2Upstream);
  return async (input, init) => {
    const request = new Request(input, init);
    await record(request, seen);
    return handler.fetch(request);
  };
}

/**
 * A 2025-era upstream that, like a real one, serves many sessions: each `initialize` starts a
 * new session (its own SDK v1 server instance); an unknown session id gets `404`.
 */
export function recordedLegacyUpstream(seen: Seen[]): UpstreamFetch {
  const sessions = new Map<string, ReturnType<typeof createLegacyMcpHandler>>();
  return async (input, init) => {
    const request = new Request(input, init);
    await record(request, seen);
    const session = request.headers.get("mcp-session-id");
    if (seen.at(-1)!.what === "POST initialize") {
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
