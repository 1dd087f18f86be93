// What the host forgets about a runner slot when the supervisor finds its kept runner unused
// (src/executor/runners/stale-slot.ts, issue #40): the pure rule, then the two stale marks that
// kept a serving runner out of use through the real RunnerLoader (a cold mark left by a refusal
// while it was replaced, a run whose call never settled), each shown avoiding the runner first
// and the runner used again once forgotten.
import { describe, expect, it } from "vitest";
import { RunnerLoader } from "../../../src/executor/runners/runner-loader";
import {
  RUNNER_HELD_MAX_MS,
  type PlacedSlot,
} from "../../../src/executor/runners/placement/runner-placement";
import type { RunnerAnswer, RunnerApi } from "../../../src/executor/runners/runner-protocol";
import { forgetStale } from "../../../src/executor/runners/stale-slot";

const QUIET_MS = 30_000;
const NOW = 1_000_000;

const slotWith = (overrides: Partial<PlacedSlot> = {}): PlacedSlot => ({
  runs: new Set(),
  restUntil: 0,
  lateUntil: 0,
  ...overrides,
});
const runAt = (lastProgress: number, inCall = 0) => ({
  caller: "c",
  lastProgress,
  inCall,
  called: inCall > 0,
});

describe("forgetStale", () => {
  it("forgets a cold mark and runs quiet for quietMs, keeps recent runs and rests", () => {
    const old = runAt(NOW - QUIET_MS);
    // A run whose host call never ended (its context was dropped) is as stale.
    const oldInCall = runAt(NOW - QUIET_MS - 5_000, 1);
    const recent = runAt(NOW - QUIET_MS + 1);
    const slot = slotWith({
      cold: true,
      askedAt: NOW - 40_000,
      restUntil: NOW + 50,
      runs: new Set([old, oldInCall, recent]),
    });
    expect(forgetStale(slot, NOW, QUIET_MS)).toEqual({ cold: true, runs: 2 });
    expect(slot).toMatchObject({ cold: false, askedAt: 0, restUntil: NOW + 50 });
    expect([...slot.runs]).toEqual([recent]);
  });

  it("finds nothing on a slot seen as it is, and leaves a spare's coldness alone", () => {
    const plain = slotWith({ runs: new Set([runAt(NOW - 10)]) });
    expect(forgetStale(plain, NOW, QUIET_MS)).toEqual({ cold: false, runs: 0 });
    expect(plain.runs.size).toBe(1);
    const spare = slotWith({ cold: true, spare: true });
    expect(forgetStale(spare, NOW, QUIET_MS)).toEqual({ cold: false, runs: 0 });
    expect(spare.cold).toBe(true);
  });
});

/** Tells the host the run began, as a real runner does first (sandbox-runner.ts). */
const begin = (host: unknown) => (host as { begin?: () => void }).begin?.();

/** A stand-in runner: `answer` decides each call (by its number, from 1) after it counts it. */
function runner(answer: (call: number, host: unknown) => Promise<RunnerAnswer>) {
  let calls = 0;
  const start = (host: unknown) => answer(++calls, host);
  const api: RunnerApi = {
    load: (_secret, _code, _request, host) => start(host),
    loadWithBase: (_secret, _hash, _base, _name, _text, _request, host) => start(host),
    get: (_secret, _hash, _code, _request, host) => start(host),
  };
  return { api, calls: () => calls };
}

/** A runner that begins and answers every run at once. */
const serving = () =>
  runner(async (_call, host) => {
    begin(host);
    return { answer: "ok" };
  });

const CODE = { compatibilityDate: "2026-08-01", mainModule: "a.js", modules: { "a.js": "" } };

/** Runs once through the loader, as the executors do. */
function run(loader: RunnerLoader) {
  const entry = loader.load(CODE).getEntrypoint() as unknown as {
    run(request: unknown, host: unknown): Promise<unknown>;
  };
  return entry.run({}, { calls: 0 });
}

/** Runs `count` runs one after another (a light, steady load). */
async function runInTurn(loader: RunnerLoader, count: number) {
  for (let i = 0; i < count; i++) await run(loader);
}

describe("RunnerLoader.forgetStale", () => {
  it("a kept runner marked cold while it was replaced gets runs again once forgotten", async () => {
    let now = NOW;
    // Runner 1's first call is refused (its slot between two runners), later ones served.
    const kept = runner(async (call, host) => {
      if (call === 1) throw new Error("connect ECONNREFUSED");
      begin(host);
      return { answer: "ok" };
    });
    const other = serving();
    const loader = new RunnerLoader([kept.api, other.api], () => now);
    await run(loader);
    // Its rest after the refusal is long over; marked cold, every run of a light load goes to
    // the idle other runner, for good.
    now += QUIET_MS;
    await runInTurn(loader, 12);
    expect([kept.calls(), other.calls()]).toEqual([1, 13]);
    expect(loader.forgetStale(1, QUIET_MS)).toEqual({ cold: true, runs: 0 });
    await runInTurn(loader, 12);
    // Both idle now, taken in turn.
    expect(kept.calls()).toBeGreaterThanOrEqual(1 + 5);
  });

  it("a run whose call never settles stops keeping its runner out of use once forgotten", async () => {
    let now = NOW;
    // Runner 1's first run begins and its call never settles (the host gave it up and the
    // call's context went with it); later runs are served.
    const kept = runner((call, host) => {
      begin(host);
      return call === 1 ? new Promise(() => {}) : Promise.resolve({ answer: "ok" });
    });
    const other = serving();
    const loader = new RunnerLoader([kept.api, other.api], () => now);
    void run(loader);
    await new Promise((r) => setTimeout(r, 0));
    expect(loader.busy()).toEqual([1, 0]);
    now += RUNNER_HELD_MAX_MS + 1;
    // Past RUNNER_HELD_MAX_MS it counts as waiting, not stalled, but its runner is never idle.
    await runInTurn(loader, 12);
    expect([kept.calls(), other.calls()]).toEqual([1, 12]);
    expect(loader.forgetStale(1, QUIET_MS)).toEqual({ cold: false, runs: 0 });
    now += QUIET_MS;
    expect(loader.forgetStale(1, QUIET_MS)).toEqual({ cold: false, runs: 1 });
    expect(loader.busy()).toEqual([0, 0]);
    await runInTurn(loader, 12);
    expect(kept.calls()).toBeGreaterThanOrEqual(1 + 5);
  });

  it("has no slot past the last binding", () => {
    expect(new RunnerLoader([serving().api]).forgetStale(2, QUIET_MS)).toBeUndefined();
  });
});
