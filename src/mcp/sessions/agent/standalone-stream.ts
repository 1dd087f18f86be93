/**
 * The standalone GET stream of a Streamable HTTP session, made hibernatable: the Worker holds
 * the client's stream (see `socket-relay.ts`) and the object holds only a hibernatable
 * WebSocket to it. The SDK transport keeps writing its standalone events the usual way (event
 * store first, then the stream registered under `_GET_stream`); what is registered there is a
 * stand-in whose frames go out on the socket. After a wake-up the stand-in is registered again
 * when the session's transport starts.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { DurableObjectEventStore } from "../event-store";
import { protocolOf, type AnyMcpServer } from "../../common/server-kind";
import { PROTOCOL_CODES, jsonRpcError } from "../../../errors";

/** The tag of the standalone stream's socket in `ctx.acceptWebSocket`. */
export const STANDALONE_SOCKET_TAG = "mcp-get";
/** Header of the Worker's upgrade request asking for the standalone stream. */
export const STANDALONE_STREAM_HEADER = "x-mcp-standalone-stream";
/** Header of the `101` telling the Worker the agent's keep-alive interval. */
export const KEEP_ALIVE_HEADER = "x-mcp-keep-alive-ms";
/** The SDK's id of the standalone stream (1.32.2 and 2.4.0, pinned). */
export const STANDALONE_STREAM_ID = "_GET_stream";

/** The SDK transport fields used here (pinned SDK versions; see the file header). */
interface StreamMappingHost {
  _streamMapping?: Map<string, { controller?: unknown; encoder?: TextEncoder; cleanup(): void }>;
}

/**
 * Registers the socket-backed stand-in as the SDK transport's standalone stream, when the
 * session has a standalone socket. Idempotent.
 *
 * @param ctx - the agent object's state
 * @param server - the connected server
 */
export function attachStandaloneStream(ctx: DurableObjectState, server: AnyMcpServer): void {
  const mapping = (protocolOf(server).transport as StreamMappingHost | undefined)?._streamMapping;
  if (mapping === undefined || mapping.has(STANDALONE_STREAM_ID)) return;
  if (openSockets(ctx).length === 0) return;
  const decoder = new TextDecoder();
  const cleanup = () => {
    mapping.delete(STANDALONE_STREAM_ID);
    for (const socket of ctx.getWebSockets(STANDALONE_SOCKET_TAG)) socket.close(1000, "closed");
  };
  const controller = {
    enqueue(chunk: Uint8Array) {
      const socket = openSockets(ctx)[0];
      try {
        socket!.send(decoder.decode(chunk));
      } catch {
        // The socket is gone (client left): later events wait in the store for a resume.
        mapping.delete(STANDALONE_STREAM_ID);
      }
    },
    close: cleanup,
  };
  mapping.set(STANDALONE_STREAM_ID, { controller, encoder: new TextEncoder(), cleanup });
}

/**
 * Accepts the Worker's socket for the session's standalone stream, replaying stored events
 * after `Last-Event-ID` first. Answers as the SDK would for a bad request.
 *
 * @param ctx - the agent object's state
 * @param request - the Worker's upgrade request (carrying the client's GET headers)
 * @param store - the session's event store
 * @param keepAliveMs - the agent's keep-alive interval, for the Worker
 * @returns `101` with the socket, or a JSON-RPC error response
 */
export async function acceptStandaloneStream(
  ctx: DurableObjectState,
  request: Request,
  store: DurableObjectEventStore,
  keepAliveMs: number,
): Promise<Response> {
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
    return error(406, "Not Acceptable: Client must accept text/event-stream");
  }
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return error(
      400,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  if (openSockets(ctx).length > 0) {
    return error(409, "Conflict: Only one SSE stream is allowed per session");
  }
  const missed: string[] = [];
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId !== null) {
    try {
      await store.replayEventsAfter(lastEventId, {
        send: async (id, message) => {
          missed.push(`event: message\nid: ${id}\ndata: ${JSON.stringify(message)}\n\n`);
        },
      });
    } catch {
      return error(400, "Bad Request: unknown Last-Event-ID; reconnect without it.");
    }
  }
  const pair = new WebSocketPair();
  ctx.acceptWebSocket(pair[1], [STANDALONE_SOCKET_TAG]);
  // Queued on the socket until the Worker accepts its end: nothing is lost in between.
  for (const frame of missed) pair[1].send(frame);
  return new Response(null, {
    status: 101,
    webSocket: pair[0],
    headers: { [KEEP_ALIVE_HEADER]: String(keepAliveMs) },
  });
}

/** The standalone sockets still open (a closing one no longer counts as the session's stream). */
function openSockets(ctx: DurableObjectState): WebSocket[] {
  return ctx.getWebSockets(STANDALONE_SOCKET_TAG).filter((socket) => socket.readyState === 1);
}

function error(status: number, message: string): Response {
  return jsonRpcError(status, PROTOCOL_CODES.serverError, message);
}
