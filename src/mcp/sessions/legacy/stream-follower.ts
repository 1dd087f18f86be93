/**
 * A resumed stream whose request runs in another server. With a fresh server per request (the
 * session restored from storage), a client's `Last-Event-ID` resume reaches a transport that
 * does not run the request: the tool goes on in the server that took the POST, storing its
 * events, while the SDK's replay here delivers what was stored so far and then waits for live
 * events that can never come to this transport. The client waited until its own timeout (the
 * agent test "a fresh server per request …" met it under CI load: the resume came before the
 * tool's last events). Such a stream follows the event store instead: its new events are read
 * every so often and written to it, until its response has been written (the SSE watcher then
 * ends the stream), the client goes away, or {@link FOLLOW_MS} has passed (the stream then
 * ends, and the client resumes again from its last event, as after any dropped stream).
 */
import type { EventStore } from "@modelcontextprotocol/server";
import type { AliasingTransport } from "./request-id-aliases";

/** The first pause between two looks at the store, and again after each event found. */
export const FIRST_LOOK_MS = 25;
/** The longest pause between two looks (each pause doubles while nothing comes). */
export const MAX_LOOK_MS = 1_000;
/** How long one resumed stream follows the store before it ends for the client to resume. */
export const FOLLOW_MS = 5 * 60_000;

/** The SDK's id for the standalone GET stream: its events come from this transport only. */
const STANDALONE_STREAM_ID = "_GET_stream";

/** One registered SSE stream of the SDK transport (1.32.2 and 2.4.0, pinned). */
interface RegisteredStream {
  controller?: unknown;
  encoder?: unknown;
  /** Event ids already written to this stream (the SDK's replay fills it). */
  replayedEventIds?: Set<string>;
  cleanup(): void;
}

/** The SDK transport fields this reads (beyond those request-id-aliases.ts reads). */
export interface FollowingTransport extends AliasingTransport {
  _streamMapping?: Map<string, RegisteredStream>;
}

/**
 * Starts following the event store for the stream a `GET` with `Last-Event-ID` resumed, when
 * no request of this transport will write to it (its request runs in another server). Returns
 * at once; the following runs while the stream is open.
 *
 * @param request - the resuming request
 * @param streamId - the stream it resumes (stream-takeover.ts found it), if any
 * @param transport - the SDK transport that answered it
 * @param eventStore - the session's event store, if any
 * @param response - the transport's answer (only a 200 event stream is followed)
 * @param followMs - how long to follow (tests shorten it)
 */
export function followStoredStream(
  request: Request,
  streamId: string | undefined,
  transport: FollowingTransport,
  eventStore: EventStore | undefined,
  response: Response,
  followMs = FOLLOW_MS,
): void {
  const lastEventId = request.headers.get("last-event-id");
  if (
    streamId === undefined ||
    streamId === STANDALONE_STREAM_ID ||
    lastEventId === null ||
    response.status !== 200 ||
    eventStore === undefined ||
    transport.writeSSEEvent === undefined
  ) {
    return;
  }
  const stream = transport._streamMapping?.get(streamId);
  if (stream === undefined) return;
  // A request of this transport writes to the stream as it goes: nothing to follow.
  for (const owner of transport._requestToStreamMapping?.values() ?? []) {
    if (owner === streamId) return;
  }
  const cursor = [...(stream.replayedEventIds ?? [])].at(-1) ?? lastEventId;
  void follow(transport, eventStore, { streamId, stream, cursor, followMs });
}

/** Reads the stream's new events from the store and writes them, while the stream is open. */
async function follow(
  transport: FollowingTransport,
  eventStore: EventStore,
  followed: { streamId: string; stream: RegisteredStream; cursor: string; followMs: number },
): Promise<void> {
  const { streamId, stream, followMs } = followed;
  const open = () => transport._streamMapping?.get(streamId) === stream;
  const started = Date.now();
  let cursor = followed.cursor;
  let pause = FIRST_LOOK_MS;
  while (open()) {
    if (Date.now() - started >= followMs) return stream.cleanup();
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (!open()) return;
    let found = false;
    try {
      await eventStore.replayEventsAfter(cursor, {
        send: async (eventId, message) => {
          cursor = eventId;
          if (!open() || stream.replayedEventIds?.has(eventId)) return;
          stream.replayedEventIds?.add(eventId);
          found = true;
          transport.writeSSEEvent?.(stream.controller, stream.encoder, message, eventId);
        },
      });
    } catch {
      // The store failed: end the stream, so the client resumes (and the store is read anew).
      if (open()) stream.cleanup();
      return;
    }
    pause = found ? FIRST_LOOK_MS : Math.min(pause * 2, MAX_LOOK_MS);
  }
}
