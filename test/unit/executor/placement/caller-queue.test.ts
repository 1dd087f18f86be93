// The line of waiting runs (src/executor/runners/placement/caller-queue.ts): its order (turns of
// caller, each caller's oldest first), the bounds on a caller's runs that may use no runner, and
// silent runs dropped. Times are plain numbers passed in; how the loader serves the line is
// runner-loader.test.ts's.
import { describe, expect, it } from "vitest";
import {
  CALLER_BUSY,
  CALLER_QUEUE_MAX,
  CALLER_WAIT_MS,
  CallerQueue,
  NEW_CALLER_AHEAD_MS,
  WAITER_SILENT_MS,
  type Waiter,
} from "../../../../src/executor/runners/placement/caller-queue";

/** A waiting run of `caller` that first asked at `since` (and looked then). */
const waiter = (caller: string, since: number): Waiter => ({ caller, since, lookedAt: since });

/** The line in turn, as "caller@since" per run. */
const order = (queue: CallerQueue<Waiter>) =>
  queue.inTurn().flatMap((runs) => runs.map((w) => `${w.caller}@${w.since}`));

describe("CallerQueue", () => {
  it("keeps each caller's runs oldest first, whatever order they join in", () => {
    const queue = new CallerQueue<Waiter>();
    for (const since of [30, 10, 20]) queue.join(waiter("", since));
    expect(order(queue)).toEqual(["@10", "@20", "@30"]);
    expect(queue.size()).toBe(3);
  });

  it("takes callers in turn: the one let in longest ago (or never) first", () => {
    const queue = new CallerQueue<Waiter>();
    const flood = [1, 2, 3].map((since) => waiter("flood", since));
    for (const w of flood) queue.join(w);
    queue.letIn(flood[0]!, 100);
    const other = waiter("other", 50);
    queue.join(other);
    // "other" was never let in: it goes before the flood, though its run is newer.
    expect(order(queue)).toEqual(["other@50", "flood@2", "flood@3"]);
    queue.letIn(other, 110);
    queue.join(waiter("other", 60));
    // Now the flood was let in longer ago.
    expect(order(queue)).toEqual(["flood@2", "flood@3", "other@60"]);
  });

  it("never lets callers new to it starve a caller let in once (a fresh child per run)", () => {
    const queue = new CallerQueue<Waiter>();
    // A victim that always has a run waiting, and a process that starts each run from a fresh
    // child: each child is a caller the line never let in. One child comes and one runner frees
    // every 100 ms, so the children alone would use every runner.
    let victim = waiter("victim", 0);
    queue.join(victim);
    let victimIn = 0;
    /** Children let in while the victim waited, though their runs came well after its run. */
    const overtook: string[] = [];
    for (let now = 100; now <= 10_000; now += 100) {
      queue.join(waiter(`child:${now}`, now));
      const first = queue.inTurn()[0]![0]!;
      queue.letIn(first, now);
      if (first !== victim) {
        if (first.since > victim.since + NEW_CALLER_AHEAD_MS)
          overtook.push(`${first.caller} over victim@${victim.since}`);
        continue;
      }
      victimIn++;
      victim = waiter("victim", now);
      queue.join(victim);
    }
    // Before: every child ranked first (never let in), so after its first run the victim
    // waited for ever (1 of 100 runners). Now a child goes before it only when its run came
    // within NEW_CALLER_AHEAD_MS of the victim's turn.
    expect(overtook).toEqual([]);
    expect(victimIn).toBeGreaterThan(1);
  });

  it("ranks a caller never let in as let in NEW_CALLER_AHEAD_MS before its oldest run came", () => {
    const queue = new CallerQueue<Waiter>();
    const a = waiter("a", 0);
    queue.join(a);
    queue.letIn(a, 10_000);
    queue.join(waiter("a", 10_001));
    const soon = 10_000 + NEW_CALLER_AHEAD_MS - 1;
    const late = 10_000 + NEW_CALLER_AHEAD_MS + 1;
    queue.join(waiter("late", late));
    queue.join(waiter("soon", soon));
    // "soon" came less than NEW_CALLER_AHEAD_MS after "a" was let in, "late" more.
    expect(order(queue)).toEqual([`soon@${soon}`, "a@10001", `late@${late}`]);
  });

  it("refuses a caller's capped run past CALLER_QUEUE_MAX; other callers still count apart", () => {
    const queue = new CallerQueue<Waiter>();
    const runs = Array.from({ length: CALLER_QUEUE_MAX + 1 }, (_, i) => waiter("u1", i));
    for (const w of runs) {
      queue.join(w);
      queue.capped(w, 0);
    }
    expect(queue.count("u1")).toBe(CALLER_QUEUE_MAX);
    for (const w of runs.slice(0, -1)) expect(() => queue.check(w, 0)).not.toThrow();
    expect(() => queue.check(runs.at(-1)!, 0)).toThrow(
      `${CALLER_BUSY}, and ${CALLER_QUEUE_MAX} more of its runs already wait`,
    );
    const other = waiter("u2", 0);
    queue.join(other);
    queue.capped(other, 0);
    expect(queue.count("u2")).toBe(1);
    // One that may use a runner again no longer counts.
    queue.uncapped(runs[0]!);
    expect(queue.count("u1")).toBe(CALLER_QUEUE_MAX - 1);
  });

  it("fails a capped run that waited CALLER_WAIT_MS with a clear error, and frees its place", () => {
    const queue = new CallerQueue<Waiter>();
    const w = waiter("u1", 0);
    queue.join(w);
    queue.capped(w, 0);
    expect(() => queue.check(w, CALLER_WAIT_MS - 1)).not.toThrow();
    expect(() => queue.check(w, CALLER_WAIT_MS)).toThrow(
      `${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms)`,
    );
    queue.leave(w);
    expect(queue.count("u1")).toBe(0);
    expect(queue.size()).toBe(0);
  });

  it("drops runs that stopped looking (their request is gone); one that looks again keeps its place", () => {
    const queue = new CallerQueue<Waiter>();
    const gone = waiter("", 0);
    const alive = waiter("", 10);
    queue.join(gone);
    queue.join(alive);
    alive.lookedAt = WAITER_SILENT_MS;
    queue.dropSilent(WAITER_SILENT_MS + 1);
    expect(order(queue)).toEqual(["@10"]);
    queue.join(gone);
    expect(order(queue)).toEqual(["@0", "@10"]);
  });
});
