/**
 * The Worker side of `McpAgent.serveSSE(path, options)`: the 2024-11-05 HTTP+SSE transport.
 *
 * - `GET path` creates a session (one Durable Object) and answers an event stream whose first
 *   event is `endpoint`, with data `path/message?sessionId=<id>`.
 * - `POST path/message?sessionId=<id>` carries one JSON-RPC message (or batch), answered
 *   `202 Accepted`; the server's answers and requests arrive as `message` events.
 *
 * The Worker holds the client's stream and sends its keep-alive comments; the object is
 * reached over a hibernatable WebSocket (see `sse-session.ts`), so an idle session costs no
 * Durable Object duration.
 */
import {
  agentHandler,
  forRpc,
  sessionStub,
  type AgentRequestInit,
  type McpAgentHandler,
  type McpAgentServeOptions,
} from "./routing";
import { relaySocket } from "./socket-relay";
import { CodeModeError, jsonRpcError, PROTOCOL_CODES } from "../../../errors";

/** Options of `McpAgent.serveSSE`: those of `serve`, plus the keep-alive interval. */
export interface McpAgentSseOptions extends McpAgentServeOptions {
  /** Interval of `: keepalive` comments on the event stream (ms). Default 25,000; 0 disables. */
  keepAliveMs?: number;
}

/** The RPC face of an agent object used by the SSE router. */
interface SseAgentStub {
  openSseSession(init: AgentRequestInit): Promise<void>;
  serveSseMessage(request: Request, init: AgentRequestInit): Promise<Response>;
  fetch(request: Request): Promise<Response>;
}

const DEFAULT_KEEP_ALIVE_MS = 25_000;

/**
 * Builds the Worker fetch handler serving an agent class over HTTP+SSE.
 *
 * Security defaults: the same Host/Origin guards and CORS as `serve`; session ids are Durable
 * Object unique ids (unguessable); OAuth props reach the object over RPC. An unknown or ended
 * session id gets `404` with a message saying to open a new stream.
 *
 * Does not do: resuming a dropped stream (HTTP+SSE has no `Last-Event-ID` resumption; the
 * session ends with its stream, and the client opens a new one), or Streamable HTTP (use
 * `serve`).
 *
 * @param path - the exact pathname of the event stream, e.g. `/sse`
 * @param options - binding, jurisdiction, CORS, guards and keep-alive options
 * @returns the fetch handler
 */
export function serveMcpAgentSse(path: string, options: McpAgentSseOptions = {}): McpAgentHandler {
  const messagePath = `${path.replace(/\/$/, "")}/message`;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;

  return agentHandler("McpAgent.serveSSE", options, {
    serves: (pathname) => pathname === path || pathname === messagePath,
    refuse: (request, url) => {
      const expected = url.pathname === path ? "GET" : "POST";
      if (request.method.toUpperCase() === expected) return undefined;
      return new Response(`Method Not Allowed: use ${expected} on ${url.pathname}.\n`, {
        status: 405,
        headers: { allow: `${expected}, OPTIONS` },
      });
    },
    route: async (request, url, namespace, init) => {
      if (url.pathname === path) return openStream(namespace, init, messagePath, keepAliveMs);
      const sessionId = url.searchParams.get("sessionId");
      if (sessionId === null || sessionId === "") {
        return jsonRpcError(
          400,
          PROTOCOL_CODES.serverError,
          `Bad Request: sessionId is missing. POST to the endpoint the event stream of GET ${path} announced.`,
        );
      }
      const type = request.headers.get("content-type") ?? "";
      if (!type.includes("application/json")) {
        return jsonRpcError(
          415,
          PROTOCOL_CODES.serverError,
          "Unsupported Media Type: send application/json.",
        );
      }
      const stub = sessionStub<SseAgentStub>(namespace, sessionId);
      if (stub === undefined) {
        return jsonRpcError(
          404,
          PROTOCOL_CODES.sessionNotFound,
          `Session not found: "${sessionId}" is not a session id. Open a new event stream with GET ${path}.`,
        );
      }
      return stub.serveSseMessage(forRpc(request), init);
    },
  });
}

/** Creates a session, connects to its object and answers the client's event stream. */
async function openStream(
  namespace: DurableObjectNamespace,
  init: AgentRequestInit,
  messagePath: string,
  keepAliveMs: number,
): Promise<Response> {
  const id = namespace.newUniqueId();
  const stub = namespace.get(id) as unknown as SseAgentStub;
  await stub.openSseSession(init);
  const upgraded = await stub.fetch(
    new Request("https://mcp-agent.internal/sse", {
      headers: { upgrade: "websocket" },
    }),
  );
  const socket = upgraded.webSocket;
  if (socket === null)
    throw new CodeModeError(
      "stream_closed",
      `agent refused the stream socket (${upgraded.status})`,
    );
  socket.accept();
  const first = `event: endpoint\ndata: ${messagePath}?sessionId=${id.toString()}\n\n`;
  return relaySocket(socket, { first, keepAliveMs });
}
