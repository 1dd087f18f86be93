/**
 * `DurableObjectEventStore`: the resumability log of 2025-era Streamable HTTP sessions, kept in
 * Durable Object storage so a client that lost its SSE connection can reconnect with
 * `Last-Event-ID` and receive every event it missed, even after the object was evicted.
 *
 * ## Key layout
 *
 * - `mcp:event:<streamId>:<seq>` → the JSON-RPC message (structured clone, not text).
 *   `<seq>` is a 16-digit zero-padded hex counter, so one stream's events sort in write order
 *   and a prefix scan replays them. The event id handed to the client is `<streamId>:<seq>`,
 *   so the stream is recovered from the id without a lookup. Stream ids never contain `:`
 *   (the transport uses random UUIDs and the literal `_GET_stream`).
 *
 * ## Lifecycle
 *
 * - Written by the transport for every SSE event it sends (including the empty "priming"
 *   event that gives a POST stream its first id), whether or not a client is connected.
 * - A POST (tool-response) stream's events are deleted once its closing frame (the last
 *   JSON-RPC response) has been written to a client, live or by replay: the stateful
 *   transport calls {@link DurableObjectEventStore.deleteStream}.
 * - The standalone GET stream (`_GET_stream`) keeps its most recent `maxEventsPerStream`
 *   events for the life of the session.
 * - Ending the session (`DELETE`) deletes the whole log ({@link DurableObjectEventStore.deleteAll};
 *   `McpAgent` deletes all of the object's storage).
 *
 * ## Limits
 *
 * - At most `maxEventsPerStream` (default 1,000) events per stream; older ones are dropped,
 *   so a client that stays away for longer than that misses the oldest events.
 * - A replay sends at most `maxEventsPerStream` events.
 * - Trade-off: if the connection dies after the closing frame was written but before its
 *   bytes reach the client, the final response cannot be replayed (the stream is gone).
 */
import type { EventStore } from "@modelcontextprotocol/server";
import { CodeModeError } from "../../errors";

/** A JSON-RPC message as the transports store it (kept structural: v1 and v2 share the shape). */
export type StoredMessage = Parameters<EventStore["storeEvent"]>[1];

/** The part of `DurableObjectStorage` the store uses (async API; works for KV- and SQLite-backed objects). */
export type EventStorage = Pick<DurableObjectStorage, "get" | "put" | "list" | "delete">;

/** Options of {@link DurableObjectEventStore}. */
export interface DurableObjectEventStoreOptions {
  /** Events kept per stream (and the most one replay sends). Default 1,000. */
  maxEventsPerStream?: number;
}

const PREFIX = "mcp:event:";
const SEQ_DIGITS = 16;
/** Durable Object storage deletes at most 128 keys per call. */
const DELETE_CHUNK = 128;

/**
 * The SDK `EventStore` over Durable Object storage (see the file header for key layout,
 * lifecycle and limits). Use one instance per session transport:
 * `new WebStandardStreamableHTTPServerTransport({ eventStore: new DurableObjectEventStore(ctx.storage), … })`.
 *
 * Security defaults: events live in the object's own storage, so one session never replays
 * another's. Ids are opaque to clients but not secret; a session id is still required to
 * reach the object.
 *
 * Does not do: encryption at rest beyond the platform's, or a time-based sweep (the object
 * and its storage end with the session).
 */
export class DurableObjectEventStore implements EventStore {
  readonly #storage: EventStorage;
  readonly #maxEvents: number;
  /** Next sequence number per stream, loaded lazily from storage after a wake-up. */
  readonly #nextSeq = new Map<string, number>();

  /**
   * @param storage - the Durable Object's `ctx.storage`
   * @param options - limits
   */
  constructor(storage: EventStorage, options: DurableObjectEventStoreOptions = {}) {
    this.#storage = storage;
    this.#maxEvents = Math.max(1, Math.floor(options.maxEventsPerStream ?? 1000));
  }

  /**
   * Appends `message` to `streamId` and returns its event id.
   *
   * @param streamId - the SSE stream (no `:` allowed)
   * @param message - the JSON-RPC message (or `{}` for a priming event)
   * @returns the event id `<streamId>:<seq>`
   * @throws CodeModeError `"invalid_event"` for a stream id containing `:`
   */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    if (streamId.includes(":")) {
      throw new CodeModeError(
        "invalid_event",
        `DurableObjectEventStore: stream ids must not contain ":" (${streamId}).`,
      );
    }
    const seq = this.#nextSeq.get(streamId) ?? (await this.#loadNextSeq(streamId));
    this.#nextSeq.set(streamId, seq + 1);
    await this.#storage.put(eventKey(streamId, seq), message);
    if (seq >= this.#maxEvents)
      await this.#storage.delete(eventKey(streamId, seq - this.#maxEvents));
    return eventId(streamId, seq);
  }

  /**
   * The stream an event id belongs to, or `undefined` when that event is no longer stored
   * (the transport then answers `400` instead of opening a stream that replays nothing).
   *
   * @param id - a `Last-Event-ID` value
   * @returns the stream id, or `undefined`
   */
  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    const parsed = parseEventId(id);
    if (parsed === undefined) return undefined;
    const stored = await this.#storage.get(eventKey(parsed.streamId, parsed.seq));
    return stored === undefined ? undefined : parsed.streamId;
  }

  /**
   * Sends every stored event of the same stream after `lastEventId`, in order. Priming
   * events (empty messages) are skipped: they carry no data for the client.
   *
   * @param lastEventId - the client's `Last-Event-ID`
   * @param sink - `send(eventId, message)` writes one event
   * @returns the stream id being resumed
   * @throws CodeModeError `"invalid_event"` for an id this store did not issue
   */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined)
      throw new CodeModeError("invalid_event", "DurableObjectEventStore: unknown event id.");
    const events = await this.#storage.list<StoredMessage>({
      start: eventKey(parsed.streamId, parsed.seq + 1),
      prefix: streamPrefix(parsed.streamId),
      limit: this.#maxEvents,
    });
    for (const [key, message] of events) {
      if (Object.keys(message).length === 0) continue;
      await send(key.slice(PREFIX.length), message);
    }
    return parsed.streamId;
  }

  /**
   * Deletes every stored event of one stream (called once its closing frame was written).
   *
   * @param streamId - the stream to forget
   */
  async deleteStream(streamId: string): Promise<void> {
    await this.#deletePrefix(streamPrefix(streamId));
    this.#nextSeq.delete(streamId);
  }

  /** Deletes every event of every stream (the session ended). */
  async deleteAll(): Promise<void> {
    await this.#deletePrefix(PREFIX);
    this.#nextSeq.clear();
  }

  /**
   * The stream id encoded in an event id this store issued.
   *
   * @param id - an event id
   * @returns the stream id, or `undefined` for a foreign id
   */
  static streamIdOf(id: string): string | undefined {
    return parseEventId(id)?.streamId;
  }

  async #loadNextSeq(streamId: string): Promise<number> {
    const last = await this.#storage.list({
      prefix: streamPrefix(streamId),
      reverse: true,
      limit: 1,
    });
    const [key] = last.keys();
    return key === undefined ? 0 : Number.parseInt(key.slice(-SEQ_DIGITS), 16) + 1;
  }

  async #deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const keys = [...(await this.#storage.list({ prefix, limit: DELETE_CHUNK })).keys()];
      if (keys.length === 0) return;
      await this.#storage.delete(keys);
    }
  }
}

function streamPrefix(streamId: string): string {
  return `${PREFIX}${streamId}:`;
}

function eventKey(streamId: string, seq: number): string {
  return `${PREFIX}${eventId(streamId, seq)}`;
}

function eventId(streamId: string, seq: number): string {
  return `${streamId}:${seq.toString(16).padStart(SEQ_DIGITS, "0")}`;
}

function parseEventId(id: string): { streamId: string; seq: number } | undefined {
  const at = id.lastIndexOf(":");
  const hex = id.slice(at + 1);
  if (at <= 0 || hex.length !== SEQ_DIGITS || !/^[0-9a-f]+$/.test(hex)) return undefined;
  return { streamId: id.slice(0, at), seq: Number.parseInt(hex, 16) };
}
