/**
 * The watchdog's decision (cli/local-server/watchdog.mjs), with a fake runtime and clock: a
 * runtime whose probes are answered, however slowly within the bound, is never taken for stuck;
 * no answer within the bound is "stopped answering"; a probe that fails at once waits for news of
 * the process's exit before it calls the runtime stuck.
 */
import { describe, expect, it } from "vitest";
import { EXIT_NEWS_MS, PROBE_EVERY_MS, watch } from "../../../../cli/local-server/watchdog.mjs";
import { fakeClock } from "./fake-clock";
import { fakeRuntime } from "./fake-runtime";

const STUCK_MS = 10_000;

function watched(answer: (clock: ReturnType<typeof fakeClock>) => Promise<unknown>) {
  const clock = fakeClock();
  const runtime = fakeRuntime("runner 1");
  const reasons: string[] = [];
  let stopping = false;
  const done = watch(runtime, {
    stuckMs: STUCK_MS,
    clock,
    stopping: () => stopping,
    onStuck: (reason: string) => reasons.push(reason),
    probe: () => answer(clock) as any,
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
});
