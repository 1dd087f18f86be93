// The line of waiting runs as the chooser serves it
// (src/executor/runners/placement/slot-chooser.ts): a run whose request is gone (workerd never
// fires its timers again) holds no runner. The clock is the test's; the timers are faked and
// never run, as a dropped request's would not.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WAITER_GIVE_SILENT_MS } from "../../../../src/executor/runners/placement/caller-queue";
import type {
  PlacedSlot,
  RunOnSlot,
} from "../../../../src/executor/runners/placement/runner-placement";
import { SlotChooser } from "../../../../src/executor/runners/placement/slot-chooser";

/** A run that began at `at` and has not called the host (it may be blocking, for now). */
const young = (at: number): RunOnSlot => ({
  caller: "",
  lastProgress: at,
  inCall: 0,
  called: false,
});

/** A serving runner slot with `runs` under way. */
const slotWith = (...runs: RunOnSlot[]): PlacedSlot => ({
  runs: new Set(runs),
  restUntil: 0,
  lateUntil: 0,
});

describe("SlotChooser's line", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes a runner back from a waiting run that does not take it (its request gone), for the next", () => {
    let now = 1_000;
    const slots = [slotWith(young(now)), slotWith(young(now))];
    const chooser = new SlotChooser(slots, () => now);
    // Both runners have a young run: it waits (and, its timers never running, never looks).
    const gone = chooser.placing("", now);
    expect(gone.choose(undefined)).toBeInstanceOf(Promise);
    now += 20;
    slots[0]!.runs.clear(); // the first runner's run ended
    const next = chooser.placing("", now);
    // The runner is given to the run waiting longer, held for it: the next run waits.
    expect(next.choose(undefined)).toBeInstanceOf(Promise);
    expect(slots[0]!.runs.size).toBe(1);
    // It never takes it. Past WAITER_GIVE_SILENT_MS the runner goes to a run that looks.
    now += WAITER_GIVE_SILENT_MS + 1;
    const later = chooser.placing("", now);
    expect(later.choose(undefined)).toBe(slots[0]);
    later.sent();
    expect(slots[0]!.runs.size).toBe(0);
  });
});
