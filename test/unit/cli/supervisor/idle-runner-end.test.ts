/**
 * When a runner beyond the kept ones is ended for being idle (cli/local-server/runners/
 * idle-runner-end.mjs), one look at a time with the clock's time given: kept runners never,
 * a busy one's idle time starts again, a spare sooner than a regular runner, the warm spare
 * not while the pool is busy, a runner not yet probed or already going never.
 */
import { describe, expect, it } from "vitest";
import {
  IDLE_END_MS,
  SPARE_IDLE_END_MS,
  idleRunnersToEnd,
} from "../../../../cli/local-server/runners/idle-runner-end.mjs";
import { countHeaders, fakeRuntime, type FakeRuntime } from "./fake-runtime";

/** Slots 1..count then the spares, each with a runner that has begun `begun` runs and probed. */
function slotsOf(count: number, spares: number, begun = 0) {
  return Array.from({ length: count + spares }, (_, i) => {
    const runtime = fakeRuntime(`runner ${i + 1}`);
    runtime.counts.begun = begun;
    runtime.lastHeaders = countHeaders(runtime.counts);
    return {
      index: i + 1,
      spare: i >= count,
      retiring: false,
      starting: false,
      seenBegun: -1,
      idleSince: 0,
      runtime: runtime as FakeRuntime | null,
    };
  });
}
type Slot = ReturnType<typeof slotsOf>[number];

/** What the watchdog's probe records for the slot's runner now. */
function probe(slot: Slot, counts: Partial<FakeRuntime["counts"]>) {
  const runtime = slot.runtime!;
  Object.assign(runtime.counts, counts);
  runtime.lastHeaders = countHeaders(runtime.counts);
}

const ended = (due: ReturnType<typeof idleRunnersToEnd>) => due.map((d) => d.slot.index);

describe("ending idle runners", () => {
  it("ends a runner beyond the kept ones after IDLE_END_MS without a run; kept ones stay", () => {
    const slots = slotsOf(3, 0, 4);
    // The first look sees its counts for the first time: its idle time starts there.
    expect(idleRunnersToEnd(slots, 1, 1_000)).toEqual([]);
    expect(slots.map((s) => s.idleSince)).toEqual([0, 1_000, 1_000]);
    expect(idleRunnersToEnd(slots, 1, 1_000 + IDLE_END_MS - 1)).toEqual([]);
    const due = idleRunnersToEnd(slots, 1, 1_000 + IDLE_END_MS);
    expect(ended(due)).toEqual([2, 3]);
    expect(due[0]).toMatchObject({ runtime: slots[1]!.runtime, begun: 4, idleMs: IDLE_END_MS });
  });

  it("a run begun since the last look, or one under way, starts its idle time again", () => {
    const slots = slotsOf(2, 0);
    idleRunnersToEnd(slots, 1, 0);
    probe(slots[1]!, { begun: 1 });
    expect(idleRunnersToEnd(slots, 1, IDLE_END_MS)).toEqual([]);
    expect(slots[1]!.idleSince).toBe(IDLE_END_MS);
    probe(slots[1]!, { underWay: 1 });
    expect(idleRunnersToEnd(slots, 1, 5 * IDLE_END_MS)).toEqual([]);
    expect(slots[1]!.idleSince).toBe(5 * IDLE_END_MS);
    probe(slots[1]!, { underWay: 0 });
    expect(idleRunnersToEnd(slots, 1, 6 * IDLE_END_MS - 1)).toEqual([]);
    expect(ended(idleRunnersToEnd(slots, 1, 6 * IDLE_END_MS))).toEqual([2]);
  });

  it("a spare ends after SPARE_IDLE_END_MS, sooner than a regular runner", () => {
    const slots = slotsOf(1, 1);
    idleRunnersToEnd(slots, 1, 0);
    expect(idleRunnersToEnd(slots, 1, SPARE_IDLE_END_MS - 1)).toEqual([]);
    const due = idleRunnersToEnd(slots, 1, SPARE_IDLE_END_MS);
    expect(ended(due)).toEqual([2]);
    expect(due[0]!.idleMs).toBe(SPARE_IDLE_END_MS);
  });

  it("the warm spare stays while a runner beyond the kept ones runs, and ends with it", () => {
    const slots = slotsOf(2, 1);
    idleRunnersToEnd(slots, 1, 0);
    // Runner 2 (beyond the kept one) keeps beginning runs: the pool is busy.
    probe(slots[1]!, { begun: 1 });
    expect(idleRunnersToEnd(slots, 1, 3 * SPARE_IDLE_END_MS)).toEqual([]);
    // Idle at last: runner 2 is due, and the spare, long idle, once runner 2 is gone.
    const idle = 3 * SPARE_IDLE_END_MS + IDLE_END_MS;
    expect(ended(idleRunnersToEnd(slots, 1, idle))).toEqual([2]);
    slots[1]!.runtime!.killedBecause = "it was idle";
    expect(ended(idleRunnersToEnd(slots, 1, idle + 1))).toEqual([3]);
  });

  it("a spare kept running (keepWarmSpare) is never ended for being idle", () => {
    for (const keptSpare of [true, false]) {
      const slots = slotsOf(1, 1);
      idleRunnersToEnd(slots, 1, 0, keptSpare);
      expect(ended(idleRunnersToEnd(slots, 1, 100 * IDLE_END_MS, keptSpare))).toEqual(
        keptSpare ? [] : [2],
      );
    }
  });

  it("passes over runners not yet probed, ended, retiring or starting, and empty slots", () => {
    const slots = slotsOf(6, 0);
    slots[1]!.runtime!.lastHeaders = undefined;
    slots[2]!.runtime!.killedBecause = "it was idle";
    slots[3]!.retiring = true;
    slots[4]!.starting = true;
    slots[5]!.runtime = null;
    idleRunnersToEnd(slots, 1, 0);
    expect(idleRunnersToEnd(slots, 1, 10 * IDLE_END_MS)).toEqual([]);
    // Probed at last, it starts its idle time then, not at the pool's start.
    slots[1]!.runtime!.lastHeaders = countHeaders(slots[1]!.runtime!.counts);
    expect(idleRunnersToEnd(slots, 1, 10 * IDLE_END_MS)).toEqual([]);
    expect(ended(idleRunnersToEnd(slots, 1, 11 * IDLE_END_MS))).toEqual([2]);
  });
});
