/**
 * Watches the SSE body the SDK transport writes, frame by frame, to do the two things the SDK
 * leaves to the host: end a resumed POST stream once its final response was replayed (the
 * SDK would keep it open with keep-alives forever), and delete a POST stream's stored events
 * once its closing frame has been written.
 */

/** What the watcher needs to know about the session it serves. */
export interface SseWatchHooks {
  /** The stream an event id belongs to (from the event store's id format). */
  streamIdOf(eventId: string): string | undefined;
  /** Whether the transport still owes a response on that stream. */
  hasPendingRequests(streamId: string): boolean;
  /** Forgets the stream's stored events: its closing frame has been written. */
  deleteStream(streamId: string): Promise<void>;
}

/** The SDK's id for the standalone GET stream: it never closes with a response. */
const STANDALONE_STREAM_ID = "_GET_stream";

/**
 * Wraps an SSE response so that, after a frame carrying a JSON-RPC response is written:
 * when no other request is pending on its stream, the stream's events are deleted and the
 * response ends (EOF). A stream the transport ends itself right after a response (the normal
 * live case) is treated the same. Non-SSE responses are returned unchanged.
 *
 * The SDK writes each frame with one `enqueue`, so frames are parsed per chunk; a chunk that
 * is not a whole frame is passed through and only ever delays deletion (the safe side).
 *
 * @param response - the transport's response
 * @param hooks - session callbacks
 * @returns the watched response (same status and headers)
 */
export function watchSseResponse(response: Response, hooks: SseWatchHooks): Response {
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || !type.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let ended = false;

  const finish = async (streamId: string | undefined) => {
    if (ended) return;
    ended = true;
    if (streamId !== undefined && streamId !== STANDALONE_STREAM_ID) {
      await hooks.deleteStream(streamId).catch(() => undefined);
    }
  };

  const body = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          ended = true;
          return;
        }
        controller.enqueue(value);
        const frame = parseFrame(decoder.decode(value));
        if (frame === undefined || !frame.isResponse || frame.id === undefined) return;
        const streamId = hooks.streamIdOf(frame.id);
        if (streamId === undefined || hooks.hasPendingRequests(streamId)) return;
        await finish(streamId);
        controller.close();
        // Releases the transport's side (its cancel callback clears the keep-alive timer).
        await reader.cancel().catch(() => undefined);
      },
      cancel: async (reason) => {
        ended = true;
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    // Pull one frame at a time: a frame is "written" only when the consumer asked for it.
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The fields of one SSE frame the watcher cares about. */
interface Frame {
  id: string | undefined;
  isResponse: boolean;
}

function parseFrame(text: string): Frame | undefined {
  let id: string | undefined;
  let data = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("id: ")) id = line.slice(4).trim();
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (data.trim() === "") return id === undefined ? undefined : { id, isResponse: false };
  try {
    const message = JSON.parse(data) as Record<string, unknown>;
    const isResponse = "id" in message && ("result" in message || "error" in message);
    return { id, isResponse };
  } catch {
    return { id, isResponse: false };
  }
}
