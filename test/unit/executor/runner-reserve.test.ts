// The warm reserve (src/executor/runners/runner-reserve.ts): which cold runner slot the host rings
// ahead of the work, decided on plain slots at a given time. How the loader sends the ring, and
// when (after placing a run), is pinned in runner-loader.test.ts ("the warm reserve").
import { describe, expect, it } from "vitest";
import {
  RUNNER_STALL_MS,
  type RunOnSlot,
} from "../../../src/executor/runners/placement/runner-placement";
import {
  RESERVE_PENDING_MS,
  slotToRing,
  type ReserveSlot,
} from "../../../src/executor/runners/runner-reserve";

const NOW = 1_000_000;

/** A run that began at `began` and has not called the host (a program computing). */
const run = (began = NOW): RunOnSlot => ({
  caller: "",
  lastProgress: began,
  inCall: 0,
  called: false,
});

function slot(name: string, own: Partial<ReserveSlot> = {}, runs: RunOnSlot[] = []) {
  return { name, runs: new Set(runs), restUntil: 0, lateUntil: 0, rungAt: 0, ...own };
}

/** Slots 2 and 3 cold, the spare cold; slot 1 serving with `runs`. */
function pool(runs: RunOnSlot[] = [run()]) {
  return [
    slot("1", {}, runs),
    slot("2", { cold: true }),
    slot("3", { cold: true }),
    slot("spare", { cold: true, spare: true }),
  ];
}

describe("slotToRing", () => {
  it("rings the first regular cold slot once no serving runner is idle", () => {
    expect(slotToRing(pool(), NOW)?.name).toBe("2");
    // A runner busy with a run that calls the host is not idle either.
    expect(slotToRing(pool([{ ...run(), called: true, inCall: 1 }]), NOW)?.name).toBe("2");
  });

  it("rings nothing while a serving runner is idle", () => {
    expect(slotToRing(pool([]), NOW)).toBeUndefined();
    const slots = pool();
    slots.push(slot("4", {}));
    expect(slotToRing(slots, NOW)).toBeUndefined();
  });

  it("counts a cold slot as no idle runner (it is not known to serve)", () => {
    // Every slot cold: nothing idle serves, so one is rung.
    const slots = [slot("1", { cold: true }), slot("2", { cold: true })];
    expect(slotToRing(slots, NOW)?.name).toBe("1");
  });

  it("rings no other slot while a rung one is on its way, then rings again", () => {
    const slots = pool();
    slots[1]!.rungAt = NOW - RESERVE_PENDING_MS + 1;
    expect(slotToRing(slots, NOW)).toBeUndefined();
    // Past the pending time the slot counts as failed to come: it is rung again (first in line).
    expect(slotToRing(slots, NOW + 1)?.name).toBe("2");
    // A rung slot that came up is no longer cold: the next cold one is the reserve.
    slots[1]!.cold = false;
    slots[1]!.runs.add(run(NOW - RUNNER_STALL_MS));
    expect(slotToRing(slots, NOW)?.name).toBe("3");
  });

  it("never rings the spare, a slot with a run on its way, or a resting slot", () => {
    const slots = pool();
    // Slot 2 has a run on its way (that run rings it); slot 3 has just refused one (resting).
    slots[1]!.runs.add(run());
    slots[2]!.restUntil = NOW + 100;
    expect(slotToRing(slots, NOW)).toBeUndefined();
    // Its rest over, slot 3 is rung; the spare never.
    expect(slotToRing(slots, NOW + 100)?.name).toBe("3");
    slots[2]!.cold = false;
    slots[2]!.runs.add(run());
    expect(slotToRing(slots, NOW + 100)).toBeUndefined();
  });
});
