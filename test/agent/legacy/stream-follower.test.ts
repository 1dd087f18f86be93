/**
 * The resumed stream that follows the event store (src/mcp/sessions/legacy/stream-follower.ts):
 * with a fresh server per request, a resume reaches a transport that does not run the request,
 * so the stream's later events are read from the store. A real event store over in-memory
 * storage; the transport is the SDK's registration shape, recorded write by write.
 */
import { describe, expect, it } from "vitest";
import { DurableObjectEventStore } from "../../../src/index";
import {
  followStoredStream,
  type FollowingTransport,
} from "../../../src/mcp/sessions/legacy/stream-follower";
import { memoryStorage } from "../memory-storage";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (n: number) => ({
  jsonrpc: "2.0" as const,
  method: "notifications/progress",
  params: { progressToken: "p", progress: n },
});

/** A transport with one registered stream, as the SDK leaves it after a replay. */
function setUp(options: { ownedHere?: boolean } = {}) {
  const store = new DurableObjectEventStore(memoryStorage());
  const written: { eventId?: string; message: unknown }[] = [];
  let cleanups = 0;
  const stream = {
    controller: {},
    encoder: {},
    replayedEventIds: new Set<string>(),
    cleanup: () => {
      cleanups++;
      transport._streamMapping?.delete("s1");
    },
  };
  const transport: FollowingTransport = {
    _streamMapping: new Map([["s1", stream]]),
    _requestToStreamMapping: new Map(options.ownedHere ? [[7, "s1"]] : []),
    writeSSEEvent: (_controller, _encoder, message, eventId) => {
      written.push({ eventId, message });
      return true;
    },
  };
  const resume = async (lastEventId: string, followMs?: number) =>
    followStoredStream(
      new Request("http://localhost/mcp", { headers: { "last-event-id": lastEventId } }),
      await store.getStreamIdForEventId(lastEventId),
      transport,
      store,
      new Response("", { status: 200 }),
      followMs,
    );
  return { store, stream, transport, written, resume, cleanups: () => cleanups };
}

describe("a resumed stream whose request runs in another server", () => {
  it("writes the stream's later events from the store, once each, in order", async () => {
    const { store, stream, written, resume, transport } = setUp();
    const first = await store.storeEvent("s1", progress(1));
    const second = await store.storeEvent("s1", progress(2));
    // The SDK's replay already wrote the second event.
    stream.replayedEventIds.add(second);
    await resume(first);
    const third = await store.storeEvent("s1", progress(3));
    await store.storeEvent("other", progress(99));
    await sleep(150);
    const fourth = await store.storeEvent("s1", progress(4));
    await sleep(1_200);
    expect(written.map((w) => w.eventId)).toEqual([third, fourth]);
    // The client went away (the SDK unregistered the stream): nothing more is written.
    transport._streamMapping?.delete("s1");
    await store.storeEvent("s1", progress(5));
    await sleep(1_200);
    expect(written).toHaveLength(2);
  });

  it("leaves a stream alone when a request of this transport writes to it", async () => {
    const { store, written, resume } = setUp({ ownedHere: true });
    const first = await store.storeEvent("s1", progress(1));
    await resume(first);
    await store.storeEvent("s1", progress(2));
    await sleep(200);
    expect(written).toEqual([]);
  });

  it("ends the stream after its time, for the client to resume from its last event", async () => {
    const { store, resume, cleanups, transport } = setUp();
    const first = await store.storeEvent("s1", progress(1));
    await resume(first, 100);
    await sleep(400);
    expect(cleanups()).toBe(1);
    expect(transport._streamMapping?.has("s1")).toBe(false);
  });

  it("ends the stream when the store fails, for the client to resume", async () => {
    const { store, resume, cleanups } = setUp();
    const first = await store.storeEvent("s1", progress(1));
    store.replayEventsAfter = async () => {
      throw new Error("storage is gone");
    };
    await resume(first);
    await sleep(200);
    expect(cleanups()).toBe(1);
  });
});
