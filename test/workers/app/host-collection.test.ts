/**
 * The host's own full collections (src/app/host-collection.ts, issue #28): after every N
 * requests, a collection runs once the answer that reached the count is out; where the runtime
 * exposes no `gc` (Cloudflare, this pool) nothing is scheduled and `/health` says nothing of it.
 * The local server's wiring (`--expose-gc` for a host with runners) is checked by e2e `soak`.
 */
import { describe, expect, it } from "vitest";
import { COLLECTIONS_HEADER } from "../../../src/app/create-worker";
import { REDUCING_COLLECTION, hostCollection } from "../../../src/app/host-collection";
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
    // The memory-reducing flavor: a plain full collection keeps the freed pages resident.
    expect(asked).toEqual([REDUCING_COLLECTION, REDUCING_COLLECTION]);
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
    expect({ asked, collections: collection.collections }).toEqual({
      asked: [REDUCING_COLLECTION, undefined],
      collections: 1,
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
