/**
 * The warm spare's lifetime (cli/local-server/runners/warm-spare.mjs): the pool is busy while a
 * runner beyond the kept ones runs; only then is the spare started and kept whatever its idle
 * time; a ring on the spare starts an empty regular slot first.
 */
import { describe, expect, it } from "vitest";
import {
  poolBusy,
  slotForRing,
  spareStays,
  sparesToStart,
} from "../../../../cli/local-server/runners/warm-spare.mjs";

/** Slots 1..count, then the spares; `running` lists the indexes with a runner. */
function slotsOf(count: number, spares: number, running: number[], killed: number[] = []) {
  return Array.from({ length: count + spares }, (_, i) => ({
    index: i + 1,
    spare: i >= count,
    runtime: running.includes(i + 1)
      ? { killedBecause: killed.includes(i + 1) ? "it was idle" : undefined }
      : null,
  }));
}
const empty = (slot: { runtime: unknown }) => slot.runtime === null;

describe("the warm spare", () => {
  it("the pool is busy only while a regular runner beyond the kept ones runs", () => {
    expect(poolBusy(slotsOf(3, 1, [1]), 1)).toBe(false);
    // The spare alone (one runner configured, the host found it held) is no busy pool.
    expect(poolBusy(slotsOf(1, 1, [1, 2]), 1)).toBe(false);
    expect(poolBusy(slotsOf(3, 1, [1, 3]), 1)).toBe(true);
    // A runner being ended counts no more.
    expect(poolBusy(slotsOf(3, 1, [1, 2], [2]), 1)).toBe(false);
    // A fixed pool (every runner kept) is never busy: nothing beyond the kept ones.
    expect(poolBusy(slotsOf(3, 1, [1, 2, 3]), 3)).toBe(false);
  });

  it("is started only while the pool is busy, and only where no runner is", () => {
    expect(sparesToStart(slotsOf(3, 1, [1]), 1, empty)).toEqual([]);
    expect(sparesToStart(slotsOf(3, 1, [1, 2]), 1, empty).map((s) => s.index)).toEqual([4]);
    expect(sparesToStart(slotsOf(3, 1, [1, 2, 4]), 1, empty)).toEqual([]);
  });

  it("stays while the pool is busy, however long idle; a regular runner never stays for it", () => {
    const busy = slotsOf(3, 1, [1, 2, 4]);
    expect(spareStays(busy[3]!, busy, 1)).toBe(true);
    expect(spareStays(busy[1]!, busy, 1)).toBe(false);
    const idle = slotsOf(3, 1, [1, 4]);
    expect(spareStays(idle[3]!, idle, 1)).toBe(false);
  });

  it("a ring on the spare starts an empty regular slot first", () => {
    const slots = slotsOf(3, 1, [1, 2]);
    expect(slotForRing(slots[3]!, slots, empty).index).toBe(3);
    const full = slotsOf(3, 1, [1, 2, 3]);
    expect(slotForRing(full[3]!, full, empty).index).toBe(4);
    // A regular slot's ring is its own.
    expect(slotForRing(slots[2]!, slots, empty).index).toBe(3);
  });
});
