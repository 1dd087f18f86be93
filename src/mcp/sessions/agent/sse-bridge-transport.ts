/**
 * An MCP SDK transport (v1 and v2 share the shape) whose outgoing messages go to the Worker
 * holding the client's event stream, over the hibernatable WebSocket the object accepted.
 * Incoming messages are handed in by `SseSession` from each client POST.
 */
import { CodeModeError } from "../../../errors";

/** The tag of the event stream's socket in `ctx.acceptWebSocket`. */
export const SSE_SOCKET_TAG = "mcp-sse";

type Message = Record<string, unknown>;
type RequestId = string | number;

/** The bridge transport of one HTTP+SSE session. */
export class SseBridgeTransport {
  /** The session id (the object's id), as the SDK transport contract has it. */
  readonly sessionId: string;
  /** Set by the server on connect. */
  onmessage?: (message: Message, extra?: unknown) => void;
  /** Set by the server on connect. */
  onclose?: () => void;
  /** Set by the server on connect. */
  onerror?: (error: Error) => void;

  readonly #ctx: DurableObjectState;
  /** Requests whose answer is not relayed (the `initialize` replayed on restore). */
  readonly #muted = new Set<RequestId>();
  /** Who waits for the answer to a request id (POSTs held until their request is answered). */
  readonly #waiting = new Map<RequestId, (() => void)[]>();
  #closed = false;

  /**
   * @param ctx - the agent object's state (its WebSockets)
   * @param sessionId - the session id
   */
  constructor(ctx: DurableObjectState, sessionId: string) {
    this.#ctx = ctx;
    this.sessionId = sessionId;
  }

  /** Nothing to start: the socket is accepted by `SseSession`. */
  async start(): Promise<void> {}

  /**
   * Sends a message to the client's event stream. An answer also releases the POST that
   * brought its request.
   *
   * @param message - a JSON-RPC message from the server
   */
  async send(message: Message): Promise<void> {
    const id = answerId(message);
    if (id !== undefined) {
      const waiters = this.#waiting.get(id);
      this.#waiting.delete(id);
      // Released after the frame is handed to the socket below (or on failure).
      queueMicrotask(() => waiters?.forEach((release) => release()));
      if (this.#muted.delete(id)) return;
    }
    const socket = this.#ctx.getWebSockets(SSE_SOCKET_TAG)[0];
    if (socket === undefined)
      throw new CodeModeError("stream_closed", "The session's event stream is closed.");
    // A whole SSE frame: the Worker writes it to the client's stream as it is.
    socket.send(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Ends the transport: held POSTs are released. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiters of this.#waiting.values()) waiters.forEach((release) => release());
    this.#waiting.clear();
    this.onclose?.();
  }

  /**
   * Hands a client message to the server.
   *
   * @param message - a JSON-RPC message from the client
   * @param extra - `authInfo` and `requestInfo` for handlers
   * @returns resolves when a request has been answered (at once for anything else)
   */
  deliver(message: Message, extra: unknown): Promise<void> {
    const id = requestId(message);
    const answered =
      id === undefined || this.#closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.#waiting.set(id, [...(this.#waiting.get(id) ?? []), resolve]);
          });
    try {
      this.onmessage?.(message, extra);
    } catch (error) {
      this.onerror?.(error as Error);
    }
    return answered;
  }

  /**
   * Replays a stored request into the server without relaying its answer.
   *
   * @param request - the stored `initialize` request
   * @returns resolves once the server has answered it
   */
  replay(request: Message): Promise<void> {
    const id = requestId(request);
    if (id !== undefined) this.#muted.add(id);
    return this.deliver(request, {});
  }
}

function requestId(message: Message): RequestId | undefined {
  if (typeof message.method !== "string") return undefined;
  const id = message.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function answerId(message: Message): RequestId | undefined {
  if (!("result" in message) && !("error" in message)) return undefined;
  const id = message.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
