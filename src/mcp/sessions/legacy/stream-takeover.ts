/**
 * A client resuming a stream with `Last-Event-ID` takes it over from a connection the server
 * still thinks is open. At the edge a dropped connection is only noticed when a write fails
 * (up to a keep-alive interval later), and until then the SDK answers every resume with
 * `409 Conflict`, so a client whose POST stream dropped while a tool runs could not resume
 * until the tool ended. A resume names the stream's last delivered event, which proves the
 * client has lost that stream; the stale connection is closed and the replay takes its place.
 */
import type { EventStore } from "@modelcontextprotocol/server";

/** One registered SSE stream of the SDK transport (1.32.2 and 2.4.0, pinned). */
interface RegisteredStream {
  controller?: unknown;
  cleanup(): void;
}

/** The SDK transport fields this reads. */
interface TakeoverTransport {
  sessionId?: string;
  _streamMapping?: Map<string, RegisteredStream>;
}

/**
 * Closes the live registration of the stream a `GET` with `Last-Event-ID` resumes, so the
 * SDK replays it instead of answering `409`. Only for the session's own requests (the id
 * must match; the SDK validates the rest) and only when the event store can name the stream.
 *
 * @param request - the incoming request
 * @param transport - the connected SDK transport
 * @param eventStore - the session's event store, if any
 * @returns the resumed stream's id, or undefined when this is no resume of the session's own
 */
export async function releaseResumedStream(
  request: Request,
  transport: TakeoverTransport,
  eventStore: EventStore | undefined,
): Promise<string | undefined> {
  const lastEventId = request.headers.get("last-event-id");
  if (
    request.method.toUpperCase() !== "GET" ||
    lastEventId === null ||
    eventStore?.getStreamIdForEventId === undefined ||
    transport.sessionId === undefined ||
    request.headers.get("mcp-session-id") !== transport.sessionId
  ) {
    return undefined;
  }
  const streamId = await eventStore.getStreamIdForEventId(lastEventId);
  if (streamId === undefined) return undefined;
  // Ends the stale response (EOF) and unregisters it; the tool keeps running, its events are
  // stored and reach the resumed stream, which registers under the same stream id.
  transport._streamMapping?.get(streamId)?.cleanup();
  return streamId;
}
