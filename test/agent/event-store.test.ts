// DurableObjectEventStore: replay after an id, the per-stream cap, refused ids, in real storage.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DurableObjectEventStore } from "../../src/index";

/** Runs `fn` with a fresh object's real storage. */
function withStorage<T>(fn: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  const stub = env.NOTES_AGENT.get(env.NOTES_AGENT.newUniqueId());
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

const note = (n: number) => ({
  jsonrpc: "2.0" as const,
  method: "notifications/message",
  params: { n },
});

describe("DurableObjectEventStore", () => {
  it("replays a stream's events after an id, in order, skipping priming events", async () => {
    const replayed = await withStorage(async (storage) => {
      const store = new DurableObjectEventStore(storage);
      const priming = await store.storeEvent("s1", {} as never);
      await store.storeEvent("s1", note(1));
      await store.storeEvent("other", note(99));
      await store.storeEvent("s1", note(2));
      const sent: unknown[] = [];
      const streamId = await store.replayEventsAfter(priming, {
        send: async (_id, message) => void sent.push(message),
      });
      return { streamId, sent, owner: await store.getStreamIdForEventId(priming) };
    });
    expect(replayed).toEqual({ streamId: "s1", sent: [note(1), note(2)], owner: "s1" });
  });

  it("keeps at most maxEventsPerStream events, continues numbering after a restart, and forgets", async () => {
    const result = await withStorage(async (storage) => {
      const first = new DurableObjectEventStore(storage, { maxEventsPerStream: 3 });
      const ids = [];
      for (let n = 0; n < 5; n++) ids.push(await first.storeEvent("s", note(n)));
      // A new instance (as after eviction) continues the sequence from storage.
      const second = new DurableObjectEventStore(storage, { maxEventsPerStream: 3 });
      const next = await second.storeEvent("s", note(5));
      const kept = [...(await storage.list({ prefix: "mcp:event:s:" })).keys()].length;
      const dropped = await second.getStreamIdForEventId(ids[0]!);
      await second.deleteStream("s");
      const afterDelete = [...(await storage.list({ prefix: "mcp:event:" })).keys()].length;
      return { ids, next, kept, dropped, afterDelete };
    });
    expect(result.next > result.ids.at(-1)!).toBe(true);
    expect(result.kept).toBe(3);
    expect(result.dropped).toBeUndefined();
    expect(result.afterDelete).toBe(0);
  });

  it("refuses stream ids with ':' and unknown event ids", async () => {
    await withStorage(async (storage) => {
      const store = new DurableObjectEventStore(storage);
      // As the TSDoc says: CodeModeError "invalid_event" for both.
      const refused = { name: "CodeModeError", code: "invalid_event" };
      await expect(store.storeEvent("a:b", note(1))).rejects.toThrow(/must not contain/);
      await expect(store.storeEvent("a:b", note(1))).rejects.toMatchObject(refused);
      expect(await store.getStreamIdForEventId("garbage")).toBeUndefined();
      await expect(
        store.replayEventsAfter("garbage", { send: async () => {} }),
      ).rejects.toMatchObject(refused);
      expect(DurableObjectEventStore.streamIdOf("abc:0000000000000001")).toBe("abc");
    });
  });
});
