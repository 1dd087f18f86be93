/**
 * The Worker side of `McpAgent.serve(path, options)`: route 2025-era Streamable HTTP requests
 * to one Durable Object per session. `initialize` (without a session id) creates the session
 * and its object; every later request names it with `Mcp-Session-Id`.
 */
import { DurableObjectEventStore } from "../event-store";
import { DEFAULT_KEEP_ALIVE_MS } from "../legacy/worker-transport";
import {
  agentHandler,
  sessionStub,
  type AgentRequestInit,
  type McpAgentHandler,
  type McpAgentServeOptions,
} from "./routing";
import {
  checkGetOrDelete,
  checkPost,
  missingSessionId,
  type CheckedPost,
} from "./refuse-before-lookup";
import { relaySocket } from "./socket-relay";
import {
  KEEP_ALIVE_HEADER,
  STANDALONE_STREAM_HEADER,
  STANDALONE_STREAM_ID,
} from "./standalone-stream";
import { PROTOCOL_CODES, jsonRpcError } from "../../../errors";

export type { AgentRequestInit } from "./routing";

/** The RPC face of an agent object used by the router. */
interface AgentStub {
  serveMcp(request: Request, init: AgentRequestInit): Promise<Response>;
  fetch(request: Request): Promise<Response>;
}

/**
 * Builds the Worker fetch handler for an agent class bound as `options.binding`.
 *
 * Each request: exact `path` match (else `404`), Host/Origin guards (else `403`), CORS
 * preflight; then the checks that need no session, in agents' order (Accept `406`,
 * Content-Type `415`, size `413`, JSON and JSON-RPC `400`, `initialize` with a session id or
 * batched, and an unsupported `MCP-Protocol-Version`, `400`); then a POST `initialize`
 * without a session id gets a new unique object (its id is the session id), and any other
 * request is routed by `Mcp-Session-Id`. An unknown or malformed session id gets `404` with a
 * JSON-RPC error; a missing one `400`.
 *
 * Security defaults: the same guards and CORS defaults as `createMcpHandler`. Session ids
 * are Durable Object unique ids (unguessable). OAuth `ctx.props` are handed to the object
 * over RPC, never in headers a client could forge.
 *
 * Does not do: authentication (put an OAuth provider in front), or 2026-07-28 requests
 * (serve those with `createMcpHandler`).
 *
 * @param path - the exact pathname served, e.g. `/mcp`
 * @param options - binding, jurisdiction, CORS and guard options
 * @returns the fetch handler
 */
export function serveMcpAgent(path: string, options: McpAgentServeOptions = {}): McpAgentHandler {
  return agentHandler("McpAgent.serve", options, {
    serves: (pathname) => pathname === path,
    route: async (request, _url, namespace, init) => {
      const isPost = request.method.toUpperCase() === "POST";
      // Every check that needs no session runs before the lookup, as agents' does.
      const checked = isPost ? await checkPost(request) : checkGetOrDelete(request);
      if (checked instanceof Response) return checked;
      const sessionId = request.headers.get("mcp-session-id");
      if (sessionId === null && !isInitialize(checked)) return missingSessionId();
      // The body was read for the checks and is handed on as text; RPC carries no signal.
      // oxlint-disable-next-line unicorn/no-invalid-fetch-options -- a body only on POST
      const forwarded = new Request(request, { body: checked?.text ?? null, signal: null });
      if (sessionId === null) {
        const stub = namespace.get(namespace.newUniqueId()) as unknown as AgentStub;
        return stub.serveMcp(forwarded, init);
      }
      const stub = sessionStub<AgentStub>(namespace, sessionId);
      if (stub === undefined)
        return jsonRpcError(404, PROTOCOL_CODES.sessionNotFound, "Session not found");
      if (isStandaloneGet(request)) return openStandaloneStream(stub, request, sessionId);
      return stub.serveMcp(forwarded, init);
    },
  });
}

/** Whether a checked POST is an `initialize` (alone: a batch with it was refused). */
function isInitialize(checked: CheckedPost | undefined): boolean {
  return checked?.messages.some((m) => "method" in m && m.method === "initialize") ?? false;
}

/**
 * A GET for the session's standalone stream (new, or resumed with a `Last-Event-ID` of that
 * stream). A resumed POST stream still goes to the object: it ends with its final response.
 */
function isStandaloneGet(request: Request): boolean {
  if (request.method.toUpperCase() !== "GET") return false;
  const lastEventId = request.headers.get("last-event-id");
  return (
    lastEventId === null || DurableObjectEventStore.streamIdOf(lastEventId) === STANDALONE_STREAM_ID
  );
}

/**
 * Serves the standalone stream from the Worker: the object relays its events over a
 * hibernatable WebSocket, so an idle session's object holds no request or timer.
 */
async function openStandaloneStream(
  stub: AgentStub,
  request: Request,
  sessionId: string,
): Promise<Response> {
  const headers = new Headers({
    upgrade: "websocket",
    [STANDALONE_STREAM_HEADER]: "1",
  });
  for (const name of ["accept", "mcp-protocol-version", "last-event-id"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const upgraded = await stub.fetch(new Request("https://mcp-agent.internal/get", { headers }));
  const socket = upgraded.webSocket;
  if (socket === null) return upgraded;
  socket.accept();
  const keepAliveMs = Number(upgraded.headers.get(KEEP_ALIVE_HEADER) ?? DEFAULT_KEEP_ALIVE_MS);
  return relaySocket(socket, {
    keepAliveMs,
    headers: { "mcp-session-id": sessionId },
  });
}
