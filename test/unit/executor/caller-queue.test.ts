// The caller queue (src/executor/runners/caller-queue.ts): where a caller's run waits for a
// runner it may use, bounded in number and in time. The clock and the pause are the test's.
import { describe, expect, it } from "vitest";
import {
  CALLER_BUSY,
  CALLER_LOOK_MS,
  CALLER_QUEUE_MAX,
  CALLER_WAIT_MS,
  CallerQueue,
} from "../../../src/executor/runners/caller-queue";

/** A clock that a pause moves forward, and a pause that yields once. */
function fakeTime() {
  let now = 0;
  return {
    now: () => now,
    pause: async (ms: number) => {
      await Promise.resolve();
      now += ms;
    },
  };
}

describe("CallerQueue", () => {
  it("returns the runner once a look finds one, and counts the caller's waiting runs", async () => {
    const time = fakeTime();
    const queue = new CallerQueue(time.now, time.pause);
    let looks = 0;
    const found = queue.wait("u1", () => (++looks === 3 ? "runner" : undefined));
    expect(queue.count("u1")).toBe(1);
    await expect(found).resolves.toBe("runner");
    expect(time.now()).toBe(3 * CALLER_LOOK_MS);
    expect(queue.count("u1")).toBe(0);
  });

  it("fails a run that waited CALLER_WAIT_MS with a clear error, and frees its place", async () => {
    const time = fakeTime();
    const queue = new CallerQueue(time.now, time.pause);
    await expect(queue.wait("u1", () => undefined)).rejects.toThrow(
      `${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms)`,
    );
    expect(time.now()).toBeGreaterThanOrEqual(CALLER_WAIT_MS);
    expect(queue.count("u1")).toBe(0);
  });

  it("refuses at once a caller's run past CALLER_QUEUE_MAX waiting; other callers still wait", async () => {
    let release = false;
    const queue = new CallerQueue(Date.now, () => new Promise((resolve) => setTimeout(resolve, 1)));
    const look = () => (release ? "runner" : undefined);
    const waiting = Array.from({ length: CALLER_QUEUE_MAX }, () => queue.wait("u1", look));
    await expect(queue.wait("u1", look)).rejects.toThrow(
      `${CALLER_BUSY}, and ${CALLER_QUEUE_MAX} more of its runs already wait`,
    );
    const other = queue.wait("u2", look);
    expect(queue.count("u2")).toBe(1);
    release = true;
    await expect(Promise.all([...waiting, other])).resolves.toHaveLength(CALLER_QUEUE_MAX + 1);
    expect(queue.count("u1")).toBe(0);
  });
});
