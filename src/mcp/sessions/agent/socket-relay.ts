/**
 * The Worker half of a hibernatable event stream: the Worker holds the client's SSE response
 * and its keep-alive comments, and writes what the agent object sends on a WebSocket (whole
 * SSE frames) to it. The object accepted the socket with the hibernation API, so it holds no
 * request, stream or timer for the client while idle.
 */

/** Options of {@link relaySocket}. */
export interface RelayOptions {
  /** A frame written before anything else (e.g. the HTTP+SSE `endpoint` event). */
  first?: string;
  /** Interval of `: keepalive` comments (ms); 0 disables. */
  keepAliveMs: number;
  /** Response headers besides the event-stream ones. */
  headers?: Record<string, string>;
}

/**
 * Answers the client with an event stream fed by `socket` (already accepted by the caller).
 * The stream ends when the object closes the socket; when the client goes away the socket
 * is closed, which the object sees as `webSocketClose`.
 *
 * @param socket - the Worker's end of the object's socket
 * @param options - first frame, keep-alive interval and headers
 * @returns the SSE response
 */
export function relaySocket(socket: WebSocket, options: RelayOptions): Response {
  // A native stream: a write fails once the client's connection is gone, which is how a
  // dropped client is noticed (at the latest by the next keep-alive).
  const { readable, writable } = new IdentityTransformStream();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let open = true;
  const end = (clientLeft: boolean) => {
    if (!open) return;
    open = false;
    clearInterval(timer);
    if (clientLeft) socket.close(1000, "event stream closed by the client");
    else writer.close().catch(() => {});
  };
  const write = (text: string) => {
    if (open) writer.write(encoder.encode(text)).catch(() => end(true));
  };
  if (options.first !== undefined) write(options.first);
  socket.addEventListener("message", (event) => {
    // The object sends whole SSE frames as text.
    if (typeof event.data === "string") write(event.data);
  });
  socket.addEventListener("close", () => end(false));
  socket.addEventListener("error", () => end(false));
  if (options.keepAliveMs > 0) {
    timer = setInterval(() => write(": keepalive\n\n"), options.keepAliveMs);
  }
  return new Response(readable, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      ...options.headers,
    },
  });
}
