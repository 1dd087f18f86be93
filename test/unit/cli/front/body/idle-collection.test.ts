/**
 * The front's collection after a burst of bodies (cli/local-server/front/body/idle-collection.mjs): dead
 * body buffers are freed only by a garbage collection, which an idle process never runs. The
 * decision (when one is due) with injected figures and a counted `gc`; and the real one frees
 * dead ArrayBuffers.
 */
import { describe, expect, it } from "vitest";
import {
  collectionDue,
  exposedGc,
  GROWTH_BYTES,
  startIdleCollection,
} from "../../../../../cli/local-server/front/body/idle-collection.mjs";

const MIB = 1_048_576;

describe("the front's collection after a burst", () => {
  it("is due when the buffers grew by 32 MiB, or bodies held at the last one were let go", () => {
    expect(GROWTH_BYTES).toBe(32 * MIB);
    const last = { buffers: 10 * MIB, held: 0 };
    expect(collectionDue({ buffers: 41 * MIB, held: 0 }, last)).toBe(false);
    expect(collectionDue({ buffers: 42 * MIB, held: 0 }, last)).toBe(true);
    // 64 MiB of bodies were alive at the last collection; now they are gone, unfreed.
    const busy = { buffers: 80 * MIB, held: 64 * MIB };
    expect(collectionDue({ buffers: 80 * MIB, held: 40 * MIB }, busy)).toBe(false);
    expect(collectionDue({ buffers: 80 * MIB, held: 0 }, busy)).toBe(true);
  });

  it("collects once per burst, and never in ordinary use", () => {
    let buffers = 5 * MIB;
    let held = 0;
    let collections = 0;
    const check = startIdleCollection({
      held: () => held,
      arrayBuffers: () => buffers,
      gc: () => {
        collections++;
        buffers = 5 * MIB + held;
      },
      everyMs: 3_600_000,
    });
    try {
      // Small bodies come and go, and V8 collects by itself: nothing to do.
      for (let i = 0; i < 100; i++) {
        buffers += 100_000;
        expect(check.check()).toBe(false);
        if (buffers > 20 * MIB) buffers = 5 * MIB;
      }
      // A burst: 64 MiB held, 100 MiB of buffers.
      held = 64 * MIB;
      buffers = 105 * MIB;
      expect(check.check()).toBe(true);
      expect(check.check()).toBe(false);
      // They close: held drops to 0, the buffers stay until a collection.
      held = 0;
      expect(check.check()).toBe(true);
      expect(buffers).toBe(5 * MIB);
      expect(check.check()).toBe(false);
      expect(collections).toBe(2);
    } finally {
      check.stop();
    }
  });

  it("gets V8's full collection without --expose-gc, and it frees dead buffers", async () => {
    const gc = exposedGc();
    expect(typeof gc).toBe("function");
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let dead: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(MIB, 1));
    const before = process.memoryUsage().arrayBuffers;
    dead = undefined;
    void dead;
    gc();
    // V8 frees array buffers' memory on a concurrent sweeper thread after the collection, so on a
    // busy machine the count can drop a little later (it read 0 bytes freed once under load).
    let freed = before - process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 100 && freed < 32 * MIB; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      freed = before - process.memoryUsage().arrayBuffers;
    }
    expect(freed).toBeGreaterThanOrEqual(32 * MIB);
  });
});
