/**
 * The host's own full collections (src/app/host-collection.ts, issue #28): after every N
 * requests, a collection runs once the answer that reached the count is out; where the runtime
 * exposes no `gc` (Cloudflare, this pool) nothing is scheduled and `/health` says nothing of it.
 * A quiet spell after work (only probes for 10 s) gets one memory-reducing collection.
 * The local server's wiring (`--expose-gc` for a host with runners) is checked by e2e `soak`.
 */
import { describe, expect, it } from "vitest";
import { COLLECTIONS_HEADER } from "../../../src/app/create-worker";
import {
  PLAIN_COLLECTION,
  QUIET_COLLECT_MS,
  REDUCE_EVERY_COLLECTIONS,
  REDUCING_COLLECTION,
  hostCollection,
} from "../../../src/app/host-collection";
import { entry } from "./helpers";

/** A request context that keeps what it was asked to wait for. */
function context() {
  const tasks: Promise<unknown>[] = [];
  return { tasks, waitUntil: (task: Promise<unknown>) => void tasks.push(task) };
}

describe("the host's own collections", () => {
  it("collects after every N-th request, after the request's turn, reducing memory", async () => {
    let calls = 0;
    const asked: unknown[] = [];
    const collection = hostCollection(3, (options: unknown) => {
      calls++;
      asked.push(options);
    });
    const ctx = context();
    for (let i = 0; i < 7; i++) collection.afterRequest(ctx);
    // Scheduled, not run inside the request that reached the count.
    expect({ scheduled: ctx.tasks.length, calls }).toEqual({ scheduled: 2, calls: 0 });
    await Promise.all(ctx.tasks);
    expect({ calls, collections: collection.collections, enabled: collection.enabled }).toEqual({
      calls: 2,
      collections: 2,
      enabled: true,
    });
    // The first is memory-reducing: a plain full collection keeps the freed pages resident.
    expect(asked).toEqual([REDUCING_COLLECTION, PLAIN_COLLECTION]);
  });

  it("makes every 4th collection memory-reducing, the others plain (issue #43: CPU per call)", async () => {
    // A memory-reducing collection is several full ones in a row (2–3× the CPU of a plain one):
    // garbage is freed every 250 requests, heap pages given back every 1,000.
    expect(REDUCE_EVERY_COLLECTIONS).toBe(4);
    const asked: unknown[] = [];
    const collection = hostCollection(250, (options: unknown) => void asked.push(options));
    const ctx = context();
    for (let i = 0; i < 2_000; i++) collection.afterRequest(ctx);
    await Promise.all(ctx.tasks);
    const reducing = [REDUCING_COLLECTION, PLAIN_COLLECTION, PLAIN_COLLECTION, PLAIN_COLLECTION];
    expect(asked).toEqual([...reducing, ...reducing]);
  });

  it("falls back to a plain collection where V8 refuses the options", async () => {
    const asked: unknown[] = [];
    const collection = hostCollection(1, (options: unknown) => {
      asked.push(options);
      if (options !== undefined) throw new TypeError("Invalid argument");
    });
    const ctx = context();
    collection.afterRequest(ctx);
    await Promise.all(ctx.tasks);
    collection.afterRequest(ctx);
    await Promise.all(ctx.tasks);
    expect({ asked, collections: collection.collections }).toEqual({
      asked: [REDUCING_COLLECTION, undefined, PLAIN_COLLECTION, undefined],
      collections: 2,
    });
  });

  it("collects once, memory-reducing, when only probes came for the quiet time after work", async () => {
    // Issue #43: what the start-up or a burst left is given back seconds after the work stops,
    // not at the count (~2 minutes of probes) or its 4th turn (~8 minutes).
    expect(QUIET_COLLECT_MS).toBe(10_000);
    let time = 1_000_000;
    const asked: unknown[] = [];
    const collection = hostCollection(
      250,
      (options: unknown) => void asked.push(options),
      4,
      () => time,
      10_000,
    );
    const ctx = context();
    /** Probes every 500 ms for `ms`. */
    const probes = (ms: number) => {
      for (let t = 0; t < ms; t += 500) {
        time += 500;
        collection.afterRequest(ctx, true);
      }
    };
    // The start: the first request is a probe; the start-up's work counts as work.
    collection.afterRequest(ctx, true);
    probes(9_500);
    expect(ctx.tasks.length).toBe(0);
    probes(500);
    expect(ctx.tasks.length).toBe(1);
    // Once per quiet spell: more probes, nothing more.
    probes(60_000);
    expect(ctx.tasks.length).toBe(1);
    // Work, then quiet again: one more. Work less than the quiet time apart: none between.
    collection.afterRequest(ctx, false);
    probes(5_000);
    collection.afterRequest(ctx, false);
    probes(9_500);
    expect(ctx.tasks.length).toBe(1);
    probes(500);
    expect(ctx.tasks.length).toBe(2);
    await Promise.all(ctx.tasks);
    expect({ asked, collections: collection.collections }).toEqual({
      asked: [REDUCING_COLLECTION, REDUCING_COLLECTION],
      collections: 2,
    });
  });

  it("counts probes as requests and keeps the counted turn of plain and reducing ones", async () => {
    let time = 0;
    const asked: unknown[] = [];
    const collection = hostCollection(
      3,
      (options: unknown) => void asked.push(options),
      2,
      () => time,
      10_000,
    );
    const ctx = context();
    // Work at every request: never quiet, so only the count collects.
    for (let i = 0; i < 6; i++) {
      time += 20_000;
      collection.afterRequest(ctx, false);
    }
    // Probes right after work: counted, not quiet yet.
    for (let i = 0; i < 3; i++) collection.afterRequest(ctx, true);
    await Promise.all(ctx.tasks);
    expect(asked).toEqual([REDUCING_COLLECTION, PLAIN_COLLECTION, REDUCING_COLLECTION]);
  });

  it("does nothing where the runtime exposes no gc", async () => {
    const collection = hostCollection(1, undefined);
    const ctx = context();
    for (let i = 0; i < 5; i++) collection.afterRequest(ctx);
    expect({ enabled: collection.enabled, scheduled: ctx.tasks.length }).toEqual({
      enabled: false,
      scheduled: 0,
    });
    // This pool's workerd exposes none: the Worker's /health carries no count.
    const health = await entry("http://localhost/health");
    expect(health.status).toBe(200);
    expect(health.headers.has(COLLECTIONS_HEADER)).toBe(false);
    expect("gc" in globalThis).toBe(false);
  });
});
