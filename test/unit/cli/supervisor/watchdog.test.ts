/**
 * The watchdog's decision (cli/local-server/health/watchdog.mjs), with a fake runtime and clock: a
 * runtime whose probes are answered, however slowly within the bound, is never taken for stuck;
 * no answer within the bound is "stopped answering"; a probe that fails at once waits for news of
 * the process's exit before it calls the runtime stuck.
 */
import { describe, expect, it } from "vitest";
import {
  EXIT_NEWS_MS,
  PROBE_EVERY_MS,
  PROBE_FLOOR_MS,
  watch,
} from "../../../../cli/local-server/health/watchdog.mjs";
import { fakeClock } from "./fake-clock";
import { fakeRuntime } from "./fake-runtime";

const STUCK_MS = 10_000;

function watched(
  answer: (clock: ReturnType<typeof fakeClock>, timeoutMs: number) => Promise<unknown>,
  sinceAgo?: number,
  sameSocket?: () => boolean,
) {
  const clock = fakeClock();
  const runtime = fakeRuntime("runner 1");
  const reasons: string[] = [];
  let stopping = false;
  const done = watch(runtime, {
    stuckMs: STUCK_MS,
    ...(sinceAgo !== undefined && { since: clock.now() - sinceAgo }),
    clock,
    stopping: () => stopping,
    onStuck: (reason: string) => reasons.push(reason),
    probe: (_runtime: unknown, timeoutMs: number) => answer(clock, timeoutMs) as any,
    ...(sameSocket && { sameSocket }),
  });
  return { clock, runtime, reasons, done, stop: () => (stopping = true) };
}

describe("the watchdog", () => {
  it("slow answers within the bound are progress; their headers are kept", async () => {
    const { clock, runtime, reasons, stop } = watched(async (c) => {
      await c.sleep(STUCK_MS - 1_000);
      return { headers: { "x-runs-begun": "3" } };
    });
    await clock.advance(60_000);
    expect(reasons).toEqual([]);
    expect(runtime.lastHeaders).toEqual({ "x-runs-begun": "3" });
    expect(runtime.lastAnswer).toBeGreaterThan(0);
    stop();
  });

  it("no answer within the bound: stuck, once", async () => {
    const { clock, reasons, done } = watched(async (c) => {
      await c.sleep(STUCK_MS);
      return null;
    });
    await clock.advance(PROBE_EVERY_MS + STUCK_MS + 1);
    await done;
    expect(reasons).toEqual(["it stopped answering (no /health answer for 10 s)"]);
  });

  it("counts its bound from `since` when given (a runner started when the host asked)", async () => {
    const { clock, reasons, done } = watched(async (c, timeoutMs) => {
      await c.sleep(timeoutMs);
      return null;
    }, 3_000);
    // Started 3 s ago: stuck 7 s from now (its bound's end), not 10.
    await clock.advance(STUCK_MS - 3_000 - 1);
    expect(reasons).toEqual([]);
    await clock.advance(2);
    await done;
    expect(reasons).toEqual(["it stopped answering (no /health answer for 10 s)"]);
  });

  it("stuck the bound after its last answer, not a probe's pause later (issue #40)", async () => {
    // Probes end at their timeout, as the supervisor's do. The first is answered at once; then
    // a program holds the runner's thread. Each probe used to get the whole bound from when it
    // was sent, so a held runner was ended up to a pause (more on a loaded machine) past it, and
    // one round's stall outlived the 11 s to the next round (e2e fair-share).
    let probes = 0;
    const { clock, reasons } = watched(async (c, timeoutMs) => {
      if (probes++ === 0) return { headers: {} };
      await c.sleep(timeoutMs);
      return null;
    });
    await clock.advance(PROBE_EVERY_MS);
    // Answered at PROBE_EVERY_MS; silent from then on.
    await clock.advance(STUCK_MS - 1);
    expect(reasons).toEqual([]);
    await clock.advance(1);
    expect(reasons).toEqual(["it stopped answering (no /health answer for 10 s)"]);
  });

  it("a probe sent late still gets its floor before the runtime is called stuck", async () => {
    // The supervisor's own pause ran late (its thread was busy: here a pause longer than the
    // bound): the bound is over when the probe goes out, and an answer within the floor counts.
    const clock = fakeClock();
    const runtime = fakeRuntime("runner 1");
    const reasons: string[] = [];
    const timeouts: number[] = [];
    let stopping = false;
    void watch(runtime, {
      stuckMs: STUCK_MS,
      everyMs: STUCK_MS + 1_000,
      clock,
      stopping: () => stopping,
      onStuck: (reason: string) => reasons.push(reason),
      probe: async (_runtime: unknown, timeoutMs: number) => {
        timeouts.push(timeoutMs);
        await clock.sleep(PROBE_FLOOR_MS - 1);
        return { headers: { "x-runs-begun": "1" } };
      },
    });
    await clock.advance(60_000);
    expect(reasons).toEqual([]);
    expect(timeouts.length).toBeGreaterThan(2);
    expect(timeouts.every((t) => t === PROBE_FLOOR_MS)).toBe(true);
    stopping = true;
  });

  it("a probe whose timer fired a millisecond early timed out: stuck at the bound, no news wait", async () => {
    // setTimeout runs on its own clock and Date.now() rounds down: a probe given up at its
    // timeout may end when the clock says a millisecond less. Taken for a failure at once, the
    // runtime waited EXIT_NEWS_MS more, and one stall a round outlived e2e fair-share's 11 s.
    const { clock, reasons, done } = watched(async (c, timeoutMs) => {
      await c.sleep(timeoutMs - 1);
      return null;
    });
    await clock.advance(PROBE_EVERY_MS + STUCK_MS);
    await done;
    expect(reasons).toEqual(["it stopped answering (no /health answer for 10 s)"]);
  });

  it("a probe that fails at once waits for the exit's news: an exit is not 'stuck'", async () => {
    const { clock, runtime, reasons, done } = watched(async () => null);
    await clock.advance(PROBE_EVERY_MS + 100);
    runtime.exit();
    await clock.advance(EXIT_NEWS_MS);
    await done;
    expect(reasons).toEqual([]);
  });

  it("a probe that fails at once while the process still runs is stuck after the news' wait", async () => {
    const { clock, reasons, done } = watched(async () => null);
    await clock.advance(PROBE_EVERY_MS + EXIT_NEWS_MS + 1);
    await done;
    expect(reasons).toEqual([
      "its /health probe failed at once (connection refused or reset, or an error answer)",
    ]);
  });

  it("a socket file removed or replaced is stuck at once, though its kept connection answers", async () => {
    // The probes' kept connection reached the host whatever became of its file: with the file
    // removed, every new request of the front failed and the host was never replaced.
    let probes = 0;
    let ownFile = true;
    const { clock, reasons, stop } = watched(
      async () => {
        probes++;
        return { headers: {} };
      },
      undefined,
      () => ownFile,
    );
    await clock.advance(PROBE_EVERY_MS * 4);
    expect(reasons).toEqual([]);
    const answered = probes;
    expect(answered).toBeGreaterThan(0);
    ownFile = false;
    await clock.advance(PROBE_EVERY_MS + 1);
    // Not awaited: a watchdog that went on probing would never end (it used to).
    stop();
    expect(reasons).toEqual([
      "its socket file was removed or replaced by another process (nothing new could reach it there)",
    ]);
    expect(probes).toBe(answered);
  });
});
