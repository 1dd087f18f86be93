/**
 * Retiring a slot's runner (cli/local-server/runners/slot-retirement.mjs), with fake runtimes and
 * a fake clock: the wait for its runs under way ends drained, at its deadline, or when the runner
 * is gone; a runner ended for being idle leaves its slot to its doorbell, a retired one gets a
 * fresh runner; a runner that does not agree is left alone; one asked retirement at a time; and
 * which runner is due, from the slots.
 */
import { describe, expect, it } from "vitest";
import { ANSWER_GRACE_MS } from "../../../../cli/local-server/runners/runner-retirement.mjs";
import {
  DRAIN_LOOK_MS,
  DRAIN_MARGIN_MS,
  createSlotRetirement,
  drain,
  dueRetirement,
} from "../../../../cli/local-server/runners/slot-retirement.mjs";
import { fakeClock } from "./fake-clock";
import { countHeaders, fakeRuntime, type FakeRuntime } from "./fake-runtime";

const RUN_TIMEOUT_MS = 30_000;
const counts = async (runtime: any) =>
  (runtime as FakeRuntime).answers ? { ...(runtime as FakeRuntime).counts } : null;

/** A slot holding a fresh fake runner, and the retirement with recording fakes. */
function retirementOf({ agrees = true } = {}) {
  const clock = fakeClock();
  const runtime = fakeRuntime("runner 1");
  const slot = { index: 1, retired: 0, retiring: false, runtime: runtime as any };
  const lines: string[] = [];
  const restarted: number[] = [];
  const doorbells: number[] = [];
  const state = { stopping: false };
  const retirement = createSlotRetirement({
    stopping: () => state.stopping,
    askToRetire: async (r: any) => {
      if (agrees) r.counts.retiring = true;
      return agrees;
    },
    counts,
    restart: async (s) => void restarted.push(s.index),
    openDoorbell: async (s) => void doorbells.push(s.index),
    clock,
    runTimeoutMs: RUN_TIMEOUT_MS,
    log: (line) => lines.push(line),
    label: "test",
  });
  return { clock, runtime, slot, lines, restarted, doorbells, state, ...retirement };
}

/**
 * A runner with `underWay` runs under way (none answered when `answers` is false), and its drain
 * until `deadline` on `clock`; it is gone once `gone.now` is set.
 */
function drainOf(
  clock: ReturnType<typeof fakeClock>,
  { underWay = 0, answers = true, deadline = 60_000 } = {},
) {
  const runtime = fakeRuntime("runner 1");
  runtime.counts.underWay = underWay;
  runtime.answers = answers;
  const gone = { now: false };
  const drained = drain({ runtime: runtime as any, gone: () => gone.now, counts, clock, deadline });
  return { runtime, gone, drained };
}

describe("the drain", () => {
  it("ends once no run is under way, looking every DRAIN_LOOK_MS", async () => {
    const clock = fakeClock();
    const { runtime, drained } = drainOf(clock, { underWay: 2 });
    await clock.advance(DRAIN_LOOK_MS * 3);
    runtime.counts.underWay = 0;
    await clock.advance(DRAIN_LOOK_MS);
    expect(await drained).toBe("drained");
    expect(clock.now()).toBe(DRAIN_LOOK_MS * 4);
  });

  it("says how many runs are still under way at its deadline, 0 when it never answered", async () => {
    const clock = fakeClock();
    const held = drainOf(clock, { underWay: 3, deadline: 1_000 });
    await clock.advance(1_000);
    expect(await held.drained).toBe(3);
    const silent = drainOf(clock, { underWay: 3, answers: false, deadline: 2_000 });
    await clock.advance(1_000);
    expect(await silent.drained).toBe(0);
  });

  it("stops waiting when the runner is gone", async () => {
    const clock = fakeClock();
    const { gone, drained } = drainOf(clock, { underWay: 1 });
    await clock.advance(DRAIN_LOOK_MS);
    gone.now = true;
    await clock.advance(DRAIN_LOOK_MS);
    expect(await drained).toBe("gone");
  });
});

describe("retiring a slot's runner", () => {
  it("a drained runner is ended after the answer grace and its slot started afresh", async () => {
    const { clock, runtime, slot, lines, restarted, doorbells, retire } = retirementOf();
    runtime.counts.begun = 40;
    const done = retire(slot, runtime as any, 40);
    expect(slot.retiring).toBe(true);
    await clock.advance(ANSWER_GRACE_MS - 1);
    expect(runtime.isRunning()).toBe(true);
    await clock.advance(1);
    await done;
    expect(runtime.killedBecause).toBe("it was retired");
    expect(slot).toMatchObject({ runtime: null, retired: 1, retiring: false });
    expect(restarted).toEqual([1]);
    expect(doorbells).toEqual([]);
    expect(lines).toEqual([
      "test: runner 1 is retired after 40 runs, none under way (a fresh process gives back the memory runs leave in workerd); a fresh one takes its place.",
    ]);
  });

  it("a runner whose runs stay under way is ended at the run timeout plus DRAIN_MARGIN_MS", async () => {
    const { clock, runtime, slot, lines, restarted, retire } = retirementOf();
    runtime.counts.underWay = 2;
    const done = retire(slot, runtime as any, 12);
    await clock.advance(RUN_TIMEOUT_MS + DRAIN_MARGIN_MS - DRAIN_LOOK_MS);
    expect(runtime.isRunning()).toBe(true);
    await clock.advance(DRAIN_LOOK_MS);
    await done;
    expect(runtime.killedBecause).toBe("it was retired");
    expect(restarted).toEqual([1]);
    expect(lines[0]).toMatch(
      /retired after 12 runs although 2 runs are still counted under way 40 s/,
    );
  });

  it("one ended for being idle leaves its slot to its doorbell", async () => {
    const { clock, runtime, slot, lines, restarted, doorbells, retire } = retirementOf();
    const done = retire(slot, runtime as any, 3, false, 30_000);
    await clock.advance(ANSWER_GRACE_MS);
    await done;
    expect(runtime.killedBecause).toBe("it was idle");
    expect(restarted).toEqual([]);
    expect(doorbells).toEqual([1]);
    expect(lines[0]).toMatch(/runner 1 is ended: no run for 30 s/);
  });

  it("a runner found retiring unasked is not asked, and says so", async () => {
    const { clock, runtime, slot, lines, retire } = retirementOf({ agrees: false });
    const done = retire(slot, runtime as any, 5, true);
    await clock.advance(ANSWER_GRACE_MS);
    await done;
    expect(runtime.killedBecause).toBe("it was retired");
    expect(lines[0]).toMatch(/was retiring without the supervisor asking; after 5 runs/);
  });

  it("a runner that does not agree, or is replaced meanwhile, is left to the pool", async () => {
    const refused = retirementOf({ agrees: false });
    await refused.retire(refused.slot, refused.runtime as any, 40);
    expect(refused.runtime.isRunning()).toBe(true);
    expect(refused.slot).toMatchObject({ runtime: refused.runtime, retiring: false, retired: 0 });
    const replaced = retirementOf();
    replaced.runtime.counts.underWay = 1;
    const done = replaced.retire(replaced.slot, replaced.runtime as any, 40);
    await replaced.clock.advance(DRAIN_LOOK_MS);
    replaced.slot.runtime = fakeRuntime("runner 1 again");
    await replaced.clock.advance(DRAIN_LOOK_MS);
    await done;
    expect(replaced.runtime.killedBecause).toBeUndefined();
    expect(replaced.restarted).toEqual([]);
    expect(replaced.lines).toEqual([]);
  });

  it("once the server stops, a drained runner is not ended", async () => {
    const { clock, runtime, slot, state, retire } = retirementOf();
    const done = retire(slot, runtime as any, 40);
    await clock.advance(0);
    state.stopping = true;
    await clock.advance(ANSWER_GRACE_MS);
    await done;
    expect(runtime.killedBecause).toBeUndefined();
  });

  it("one asked retirement at a time", async () => {
    const { clock, runtime, slot, retireInTurn } = retirementOf();
    const other = fakeRuntime("runner 2");
    const otherSlot = { index: 2, retired: 0, retiring: false, runtime: other as any };
    runtime.counts.underWay = 1;
    retireInTurn(slot, runtime as any, 40);
    retireInTurn(otherSlot, other as any, 40);
    await clock.advance(DRAIN_LOOK_MS);
    expect(otherSlot.retiring).toBe(false);
    expect(other.counts.retiring).toBe(false);
    runtime.counts.underWay = 0;
    await clock.advance(DRAIN_LOOK_MS + ANSWER_GRACE_MS);
    expect(runtime.killedBecause).toBe("it was retired");
    // Its turn over, the next one is asked.
    retireInTurn(otherSlot, other as any, 40);
    expect(otherSlot.retiring).toBe(true);
  });
});

describe("the runner due after its runs", () => {
  /** Slots 1..n with runners that have begun `begun[i]` runs, probed. */
  const slotsOf = (begun: number[]) =>
    begun.map((b, i) => {
      const runtime = fakeRuntime(`runner ${i + 1}`);
      runtime.counts.begun = b;
      runtime.lastHeaders = countHeaders(runtime.counts);
      return { index: i + 1, retired: 0, retiring: false, runtime: runtime as any };
    });

  it("is the one most past its due count among the live, unretiring runners", () => {
    // maxRuns 30 over 3 slots: first runners due at 10, 20, 30.
    const slots = slotsOf([12, 35, 31]);
    expect(dueRetirement(slots, 30)).toMatchObject({ slot: slots[1], begun: 35, unasked: false });
    slots[1]!.retiring = true;
    expect(dueRetirement(slots, 30)?.slot).toBe(slots[0]);
    slots[0]!.runtime.killedBecause = "it crashed";
    expect(dueRetirement(slots, 30)?.slot).toBe(slots[2]);
    slots[2]!.runtime = null;
    expect(dueRetirement(slots, 30)).toBeUndefined();
  });

  it("a runner retiring unasked comes first, said to be unasked", () => {
    const slots = slotsOf([50, 2]);
    slots[1]!.runtime.lastHeaders = countHeaders({ begun: 2, underWay: 0, retiring: true });
    expect(dueRetirement(slots, 20)).toMatchObject({ slot: slots[1], begun: 2, unasked: true });
    expect(dueRetirement(slotsOf([50, 2]), 0)).toBeUndefined();
  });
});
