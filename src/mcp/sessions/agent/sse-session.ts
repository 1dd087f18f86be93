/**
 * The Durable Object side of `McpAgent.serveSSE` (the 2024-11-05 HTTP+SSE transport).
 *
 * The client's event stream is held by the Worker, not by the object: the Worker opens a
 * WebSocket into the object, which accepts it with the hibernation API, and relays what the
 * object sends on it as SSE `message` events. Each client POST reaches the object over RPC.
 * Between messages the object holds no request, stream or timer, so it may hibernate; a
 * fresh instance finds the socket again (`ctx.getWebSockets`) and restores the session by
 * replaying the stored `initialize` into the server without answering it.
 *
 * Storage: `mcp:sse` → `{ initialize? }`, written when the stream opens and at `initialize`.
 */
import {
  authContextFrom,
  authInfoFromOAuthProps,
  runWithAuthContext,
  type McpAuthContext,
} from "../../common/auth-context";
import { normalizeInitialize, type JsonRpcMessage } from "../legacy/initialize-record";
import { isConnected } from "../legacy/worker-transport";
import { useWorkerSafeValidator } from "../legacy/worker-safe-validator";
import { isSdkV2Server, type AnyMcpServer } from "../../common/server-kind";
import { SseBridgeTransport, SSE_SOCKET_TAG } from "./sse-bridge-transport";
import { PROTOCOL_CODES, jsonRpcError } from "../../../errors";
import { refuseJsonShape } from "../../common/shape-refusal";
import { readCappedText } from "../../common/capped-text";

/** Storage key of an HTTP+SSE session's record. */
export const SSE_SESSION_KEY = "mcp:sse";
const MAX_BODY = 4 * 1024 * 1024;

interface SseRecord {
  initialize?: JsonRpcMessage;
}

/** What the session needs from its agent. */
export interface SseSessionHost {
  ctx: DurableObjectState;
  server: AnyMcpServer;
  /** Runs the agent's `init()` once per instance. */
  initOnce(): Promise<void>;
}

/** One HTTP+SSE session of an agent object. */
export class SseSession {
  readonly #host: SseSessionHost;
  #transport: Promise<SseBridgeTransport> | undefined;

  /** @param host - the agent serving the session */
  constructor(host: SseSessionHost) {
    this.#host = host;
  }

  /** Marks the object as an HTTP+SSE session (before its stream's socket is accepted). */
  open(): void {
    const kv = this.#host.ctx.storage.kv;
    if (kv.get(SSE_SESSION_KEY) === undefined) kv.put(SSE_SESSION_KEY, {} satisfies SseRecord);
  }

  /**
   * Accepts the Worker's WebSocket for the session's event stream (hibernatable).
   *
   * @param request - the Worker's upgrade request
   * @returns `101` with the socket, or `409` when the session already has a stream
   */
  accept(request: Request): Response {
    const { ctx } = this.#host;
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a WebSocket upgrade from McpAgent.serveSSE.\n", {
        status: 426,
      });
    }
    if (ctx.storage.kv.get(SSE_SESSION_KEY) === undefined) {
      return new Response("Not an HTTP+SSE session.\n", { status: 404 });
    }
    if (ctx.getWebSockets(SSE_SOCKET_TAG).length > 0) {
      return new Response("This session already has an event stream.\n", { status: 409 });
    }
    const pair = new WebSocketPair();
    ctx.acceptWebSocket(pair[1], [SSE_SOCKET_TAG]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * Hands one client POST (a JSON-RPC message or batch) to the server. Answers `202` once
   * every request in it has been answered on the event stream, so the object is never left
   * running a tool without a request holding it.
   *
   * @param request - the client's POST
   * @param props - the session's OAuth props
   * @returns `202`, or `404` / `400` / `413` with a JSON-RPC error naming the problem
   */
  async serve(request: Request, props: unknown): Promise<Response> {
    const { ctx } = this.#host;
    const record = ctx.storage.kv.get<SseRecord>(SSE_SESSION_KEY);
    if (record === undefined || ctx.getWebSockets(SSE_SOCKET_TAG).length === 0) {
      return sessionNotFound();
    }
    // In bytes as they arrive (common/capped-text.ts): none is held past the limit. A client
    // that went away mid-body (aborted POST) is answered, not left as a rejection.
    const read = await readCappedText(request, MAX_BODY);
    if ("unreadable" in read)
      return jsonRpcError(
        400,
        PROTOCOL_CODES.serverError,
        "Bad Request: the body could not be read.",
      );
    if ("tooLarge" in read)
      return jsonRpcError(
        413,
        PROTOCOL_CODES.serverError,
        `Request body exceeds ${MAX_BODY} bytes.`,
      );
    const { text } = read;
    // Its shape before its parse (common/json-shape.ts): a parse builds every value.
    const refused = refuseJsonShape(text);
    if (refused !== undefined) return refused;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(
        400,
        PROTOCOL_CODES.parseError,
        "Parse error: the POST body must be a JSON-RPC message in JSON.",
      );
    }
    // Started before a new `initialize` is stored: only an earlier one is replayed.
    const transport = await this.#start();
    const initialize = normalizeInitialize(body);
    if (initialize !== undefined && record.initialize === undefined) {
      ctx.storage.kv.put(SSE_SESSION_KEY, { initialize } satisfies SseRecord);
    }
    const authInfo = authInfoFromOAuthProps(request, props);
    const context: McpAuthContext | undefined = authContextFrom(authInfo);
    const extra = {
      requestInfo: { headers: Object.fromEntries(request.headers) },
      ...(authInfo !== undefined && { authInfo }),
    };
    const messages = (Array.isArray(body) ? body : [body]) as JsonRpcMessage[];
    await runWithAuthContext(context, () =>
      Promise.all(messages.map((message) => transport.deliver(message, extra))),
    );
    // The acknowledgement agents sends (its clients may check it): an event-stream type, as
    // the answers themselves travel on the event stream.
    return new Response("Accepted", {
      status: 202,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  }

  /** @returns the `404` of an ended or unknown session */
  notFound(): Response {
    return sessionNotFound();
  }

  /** Ends the session's server side (its stream is gone). */
  async close(): Promise<void> {
    const transport = await this.#transport?.catch(() => undefined);
    await transport?.close();
  }

  #start(): Promise<SseBridgeTransport> {
    this.#transport ??= (async () => {
      const { ctx, server } = this.#host;
      await this.#host.initOnce();
      if (!isSdkV2Server(server)) useWorkerSafeValidator(server);
      const transport = new SseBridgeTransport(ctx, ctx.id.toString());
      try {
        await (server as { connect(t: unknown): Promise<void> }).connect(transport);
        const stored = ctx.storage.kv.get<SseRecord>(SSE_SESSION_KEY)?.initialize;
        // A fresh instance (after hibernation or eviction): restore the client's capabilities
        // and identity on the server; the answer was already sent to the client long ago.
        if (stored !== undefined) await transport.replay(stored);
      } catch (failure) {
        if (isConnected(server)) await server.close().catch(() => {});
        throw failure;
      }
      return transport;
    })();
    this.#transport.catch(() => {
      // A failed start (say a storage error) is retried by the next message.
      this.#transport = undefined;
    });
    return this.#transport;
  }
}

function sessionNotFound(): Response {
  return jsonRpcError(
    404,
    PROTOCOL_CODES.sessionNotFound,
    "Session not found: this sessionId has no open event stream (it ended or never existed). " +
      "Open a new one with GET on the SSE endpoint and use the endpoint it announces.",
  );
}
