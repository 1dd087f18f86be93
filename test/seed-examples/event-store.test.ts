/**
 * Seed example examples/event-store.ts: `new DurableObjectEventStore(this.ctx.storage)` inside a
 * Durable Object. Events stored by one instance are replayed, in order, after `Last-Event-ID`
 * by the next instance once the object was evicted: they live in Durable Object storage.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("seed: DurableObjectEventStore(this.ctx.storage)", () => {
  it("stores events and replays them after an eviction", async () => {
    const stub = env.EVENTS_OBJECT.get(env.EVENTS_OBJECT.idFromName("events"));
    const ids = await runInDurableObject(stub, async (object) => [
      await object.eventStore.storeEvent("post-1", { jsonrpc: "2.0", id: 1, result: { a: 1 } }),
      await object.eventStore.storeEvent("post-1", {
        jsonrpc: "2.0",
        method: "notifications/progress",
      }),
      await object.eventStore.storeEvent("post-1", { jsonrpc: "2.0", id: 2, result: { b: 2 } }),
    ]);
    await evictDurableObject(stub);

    const replayed = await runInDurableObject(stub, async (object) => {
      const sent: [string, unknown][] = [];
      const stream = await object.eventStore.replayEventsAfter(ids[0]!, {
        send: async (id, message) => {
          sent.push([id, message]);
        },
      });
      return { stream, sent };
    });
    expect(replayed.stream).toBe("post-1");
    expect(replayed.sent).toEqual([
      [ids[1], { jsonrpc: "2.0", method: "notifications/progress" }],
      [ids[2], { jsonrpc: "2.0", id: 2, result: { b: 2 } }],
    ]);
  });
});
