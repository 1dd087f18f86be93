/**
 * The host's own full collections (src/app/host-collection.ts, issue #28): after every N
 * requests, a collection runs once the answer that reached the count is out; where the runtime
 * exposes no `gc` (Cloudflare, this pool) nothing is scheduled and `/health` says nothing of it.
 * A quiet spell after work (only probes for 10 s) gets one memory-reducing collection. A light
 * request (a probe, a body under 96 bytes: a `ping`) counts 1/8 of one (issue #43).
 * The local server's wiring (`--expose-gc` for a host with runners) is checked by e2e `soak`.
 */
import { describe, expect, it } from "vitest";
import { COLLECTIONS_HEADER } from "../../../src/app/create-worker";
import {
  COLLECT_EVERY_BODY_BYTES,
  declaredBodyBytes,
  LIGHT_BODY_BYTES,
  LIGHT_REQUESTS_PER_COUNT,
  PLAIN_COLLECTION,
  QUIET_COLLECT_MS,
  REDUCE_EVERY_COLLECTIONS,
  REDUCING_COLLECTION,
  hostCollection,
  isLightRequest,
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

  it("collects after every 16 MiB of bodies too, before the count (issue #40: large bodies)", async () => {
    // 60 MCP POSTs of 3 MiB reached no count (250 requests) and grew the local host runtime
    // 120 → 496 MiB: each body's garbage (its bytes, text, parse and answer) was left for V8.
    const collection = hostCollection(250, () => undefined);
    const ctx = context();
    const body = declaredBodyBytes(String(3 * 1_048_576));
    for (let i = 0; i < 5; i++) collection.afterRequest(ctx, false, false, body);
    expect(ctx.tasks).toHaveLength(0);
    collection.afterRequest(ctx, false, false, body);
    expect(ctx.tasks).toHaveLength(1);
    // The bytes start over at each collection, as the count does.
    for (let i = 0; i < 5; i++) collection.afterRequest(ctx, false, false, body);
    expect(ctx.tasks).toHaveLength(1);
    await Promise.all(ctx.tasks);
    expect(collection.collections).toBe(1);
    expect(COLLECT_EVERY_BODY_BYTES).toBe(16 * 1_048_576);
    // What counts: a declared length; none, or one that is no length, is 0.
    expect([null, "", "-1", "1e9", "12 ", "1234567890123", "65536"].map(declaredBodyBytes)).toEqual(
      [0, 0, 0, 0, 0, 0, 65_536],
    );
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

  it("counts probes as light requests and keeps the counted turn of plain and reducing ones", async () => {
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
    expect(ctx.tasks.length).toBe(2);
    // Probes right after work: counted as shares, not quiet yet; 3 requests' worth collect.
    for (let i = 0; i < 3 * LIGHT_REQUESTS_PER_COUNT - 1; i++) collection.afterRequest(ctx, true);
    expect(ctx.tasks.length).toBe(2);
    collection.afterRequest(ctx, true);
    await Promise.all(ctx.tasks);
    expect(asked).toEqual([REDUCING_COLLECTION, PLAIN_COLLECTION, REDUCING_COLLECTION]);
  });

  it("counts a light request as 1/8 of one (issue #43: a ping paid for collections)", async () => {
    // A ping allocates far less than a run; the runs (what grew) are counted as before.
    expect(LIGHT_REQUESTS_PER_COUNT).toBe(8);
    const collection = hostCollection(250, () => {});
    const ctx = context();
    // 1,999 pings: no collection; the 2,000th reaches the count.
    for (let i = 0; i < 1_999; i++) collection.afterRequest(ctx, false, true);
    expect(ctx.tasks.length).toBe(0);
    collection.afterRequest(ctx, false, true);
    expect(ctx.tasks.length).toBe(1);
    // Mixed: 200 runs and 400 pings are 250 requests' worth; 249 and 400 are not.
    for (let i = 0; i < 400; i++) collection.afterRequest(ctx, false, true);
    for (let i = 0; i < 199; i++) collection.afterRequest(ctx, false, false);
    expect(ctx.tasks.length).toBe(1);
    collection.afterRequest(ctx, false, false);
    expect(ctx.tasks.length).toBe(2);
    // Runs alone: every 250, as before.
    for (let i = 0; i < 249; i++) collection.afterRequest(ctx);
    expect(ctx.tasks.length).toBe(2);
    collection.afterRequest(ctx);
    expect(ctx.tasks.length).toBe(3);
    await Promise.all(ctx.tasks);
    expect(collection.collections).toBe(3);
  });

  it("takes probes and short bodies for light requests, anything else for work", () => {
    // A ping with a UUID for its id is 77 bytes; the shortest tools/call is 98.
    const ping = JSON.stringify({ method: "ping", jsonrpc: "2.0", id: crypto.randomUUID() });
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search", arguments: { code: "1" } },
    });
    expect({ ping: ping.length < LIGHT_BODY_BYTES, call: call.length < LIGHT_BODY_BYTES }).toEqual({
      ping: true,
      call: false,
    });
    const cases = {
      probe: isLightRequest(true, null),
      ping: isLightRequest(false, String(ping.length)),
      empty: isLightRequest(false, "0"),
      call: isLightRequest(false, String(call.length)),
      atBound: isLightRequest(false, String(LIGHT_BODY_BYTES)),
      unknown: isLightRequest(false, null),
      notANumber: isLightRequest(false, "1e1"),
      negative: isLightRequest(false, "-1"),
      blank: isLightRequest(false, ""),
    };
    expect(cases).toEqual({
      probe: true,
      ping: true,
      empty: true,
      call: false,
      atBound: false,
      unknown: false,
      notANumber: false,
      negative: false,
      blank: false,
    });
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
