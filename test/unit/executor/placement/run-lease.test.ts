// A run's place on its runner slot, held while its request lives (src/executor/runners/
// run-lease.ts). In workerd a request given up (its client cut the connection) keeps its call to
// the runner pending for good and cancels its timers; here the stand-in runner never settles and
// the test clears the fake timers, which is all a dropped context looks like from the loader.
// Virtual time (test/helpers/virtual-time.ts): the clock moves only as the test says.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  RUN_LEASE_BEAT_MS,
  RUN_LEASE_MS,
} from "../../../../src/executor/runners/placement/run-lease";
import { RunnerLoader } from "../../../../src/executor/runners/runner-loader";
import type { RunnerAnswer, RunnerApi } from "../../../../src/executor/runners/runner-protocol";
import { startVirtualTime, type StopVirtualTime } from "../../../helpers/virtual-time";

type Handler = (host: unknown) => Promise<RunnerAnswer>;

/** A stand-in runner: begins each run at once (as a runner tells its host), answers `handler`. */
function runner(handler: Handler) {
  let sent = 0;
  const start = (host: unknown) => {
    sent++;
    (host as { begin?: () => void }).begin?.();
    return handler(host);
  };
  const api: RunnerApi = {
    load: (_secret, _code, _request, host) => start(host),
    loadWithBase: (_secret, _hash, _base, _name, _text, _request, host) => start(host),
    get: (_secret, _hash, _code, _request, host) => start(host),
  };
  return { api, sent: () => sent };
}

const CODE = { compatibilityDate: "2026-08-01", mainModule: "a.js", modules: { "a.js": "" } };

/** One run through the loader's `load` face, as the executors send it. */
function run(loader: RunnerLoader): Promise<unknown> {
  const entry = loader.load(CODE).getEntrypoint() as unknown as {
    run(request: unknown, host: unknown): Promise<unknown>;
  };
  return entry.run({}, { calls: 0 });
}

/** A loader over `runners` with leases on, as the local server makes it (sandbox-loader.ts). */
function leasedLoader(runners: { api: RunnerApi }[]): RunnerLoader {
  return new RunnerLoader(
    runners.map((r) => r.api),
    Date.now,
    undefined,
    "",
    () => "",
    0,
    false,
    true,
  );
}

/** Never settles: a call whose request's context is gone, or a program still running. */
const never: Handler = () => new Promise(() => {});

/**
 * The request that sent the runs so far is given up: workerd cancels its timers. (Vitest's
 * clearAllTimers also sets the fake clock back to its start: the time is set again.)
 */
function dropContext(): void {
  const at = Date.now();
  vi.clearAllTimers();
  vi.setSystemTime(at);
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a run's place on its runner slot (run-lease.ts)", () => {
  let stopVirtualTime: StopVirtualTime;
  beforeEach(() => {
    stopVirtualTime = startVirtualTime();
  });
  afterEach(() => stopVirtualTime());

  it("is dropped once its request's context is gone for longer than the lease", async () => {
    const loader = leasedLoader([runner(never)]);
    void run(loader);
    expect(loader.busy()).toEqual([1]);
    dropContext();
    vi.setSystemTime(Date.now() + RUN_LEASE_MS);
    // Still within the lease: a host thread busy for a while must not drop a live run.
    expect(loader.busy()).toEqual([1]);
    vi.setSystemTime(Date.now() + 1);
    expect(loader.busy()).toEqual([0]);
  });

  it("is kept for as long as its request lives, however long the run takes", async () => {
    const loader = leasedLoader([runner(never)]);
    void run(loader);
    // Its own beat renews it: many leases' worth of time, the run still under way.
    await tick(RUN_LEASE_MS * 6 + RUN_LEASE_BEAT_MS / 2);
    expect(loader.busy()).toEqual([1]);
  });

  it("leaves its runner to the next runs once dropped (not a stalled runner for good)", async () => {
    // Runner a's first run is cut off with its client; every later run answers at once.
    const a = runner(() => (a.sent() === 1 ? never(undefined) : Promise.resolve({ answer: "a" })));
    const b = runner(async () => ({ answer: "b" }));
    const loader = leasedLoader([a, b]);
    void run(loader);
    dropContext();
    // Quiet well past the stall bound: before, a ranked as stalled for good and b took all.
    vi.setSystemTime(Date.now() + RUN_LEASE_MS + 1);
    const answers = [await run(loader), await run(loader)];
    expect(answers).toContain("a");
    expect(loader.busy()).toEqual([0, 0]);
  });
});
