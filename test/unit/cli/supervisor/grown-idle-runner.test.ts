/**
 * When a kept runner that has grown is retired while idle
 * (cli/local-server/runners/grown-idle-runner.mjs, issue #43), decided on plain looks at given
 * times; then the pool's wiring with a fake clock and fake runners: the kept runner is asked,
 * drained and replaced by a fresh one, and that fresh one is never retired for its size before
 * it runs something.
 */
import { describe, expect, it } from "vitest";
import {
  GROWN_BY_BYTES,
  GROWN_IDLE_MS,
  grownIdleWatch,
  residentBytes,
} from "../../../../cli/local-server/runners/grown-idle-runner.mjs";
import { createRunnerPool } from "../../../../cli/local-server/runners/runner-pool.mjs";
import { CHECK_EVERY_MS } from "../../../../cli/local-server/runners/runner-retirement.mjs";
import { fakeClock } from "./fake-clock";
import { fakePoolParts } from "./fake-pool";
import { countHeaders, type FakeRuntime } from "./fake-runtime";

const MIB = 1024 * 1024;
const look = (begun: number, underWay: number, rssMiB: number | undefined) => ({
  counts: { begun, underWay },
  rss: rssMiB === undefined ? undefined : rssMiB * MIB,
});

describe("grownIdleWatch", () => {
  it("retires a runner idle for GROWN_IDLE_MS and GROWN_BY_BYTES above its first look", () => {
    expect({ idle: GROWN_IDLE_MS, by: GROWN_BY_BYTES / MIB }).toEqual({ idle: 30_000, by: 32 });
    const due = grownIdleWatch<{ name: string }>();
    const r = { name: "runner 1" };
    expect(due([{ runtime: r, look: look(0, 0, 62) }], 0)).toBe(null);
    // Busy: a burst of runs; it grows.
    expect(due([{ runtime: r, look: look(300, 4, 140) }], 2_000)).toBe(null);
    expect(due([{ runtime: r, look: look(500, 0, 120) }], 4_000)).toBe(null);
    // Idle since 4 s: not before 34 s.
    expect(due([{ runtime: r, look: look(500, 0, 120) }], 33_999)).toBe(null);
    expect(due([{ runtime: r, look: look(500, 0, 120) }], 34_000)).toBe(r);
  });

  it("keeps a runner that grew less, ran nothing, or whose size is unknown", () => {
    const due = grownIdleWatch<{ name: string }>();
    const [small, fresh, unknown] = ["small", "fresh", "unknown"].map((name) => ({ name }));
    const at = (now: number, ...looks: [{ name: string }, ReturnType<typeof look>][]) =>
      due(
        looks.map(([runtime, l]) => ({ runtime, look: l })),
        now,
      );
    // First looks: 62 MiB each (the unknown one: no size).
    at(0, [small!, look(0, 0, 62)], [fresh!, look(0, 0, 62)], [unknown!, look(0, 0, undefined)]);
    // 31 MiB above; grown but never ran a program (a fresh runner warmed, say); ran, size unknown.
    expect(
      at(
        60_000,
        [small!, look(10, 0, 93)],
        [fresh!, look(0, 0, 130)],
        [unknown!, look(10, 0, undefined)],
      ),
    ).toBe(null);
    expect(
      at(
        200_000,
        [small!, look(10, 0, 93)],
        [fresh!, look(0, 0, 130)],
        [unknown!, look(10, 0, undefined)],
      ),
    ).toBe(null);
  });

  it("does not retire a fresh runner warmed before its first run for one small run (churn)", () => {
    // A quiet client polls once a minute: each fresh runner is warmed with the shared worker's
    // engine (+37 MiB) after its first look, runs one small program, idles 30 s. Measured from
    // the first look it was "grown" and retired every time: a start and a warm per poll.
    const due = grownIdleWatch<{ name: string }>();
    const r = { name: "fresh kept runner" };
    due([{ runtime: r, look: look(0, 0, 62) }], 0);
    due([{ runtime: r, look: look(0, 0, 99) }], 2_000);
    due([{ runtime: r, look: look(1, 0, 101) }], 10_000);
    expect(due([{ runtime: r, look: look(1, 0, 101) }], 200_000)).toBe(null);
    // Real growth after its first run still retires it.
    due([{ runtime: r, look: look(300, 0, 140) }], 210_000);
    expect(due([{ runtime: r, look: look(300, 0, 140) }], 240_000)).toBe(r);
  });

  it("a run under way or begun restarts the idle time; no counts yet is no look", () => {
    const due = grownIdleWatch<{ name: string }>();
    const r = { name: "runner 1" };
    due([{ runtime: r, look: look(0, 0, 62) }], 0);
    due([{ runtime: r, look: look(5, 0, 130) }], 1_000);
    // A long run under way (begun unchanged) is not idle.
    due([{ runtime: r, look: look(5, 1, 130) }], 20_000);
    expect(due([{ runtime: r, look: look(5, 0, 130) }], 49_999)).toBe(null);
    expect(due([{ runtime: r, look: { counts: null, rss: 130 * MIB } }], 60_000)).toBe(null);
    expect(due([{ runtime: r, look: look(5, 0, 130) }], 60_000)).toBe(r);
  });
});

describe("residentBytes", () => {
  it("reads VmRSS from /proc/<pid>/status; unknown without it", () => {
    const status = "Name:\tworkerd\nVmRSS:\t  64512 kB\nThreads:\t9\n";
    expect(residentBytes(42, (path) => (path === "/proc/42/status" ? status : ""))).toBe(
      64512 * 1024,
    );
    expect(
      residentBytes(42, () => {
        throw new Error("ENOENT");
      }),
    ).toBe(undefined);
    expect(residentBytes(0, () => status)).toBe(undefined);
  });
});

describe("the pool retires a grown kept runner once idle", () => {
  function grownPool(count: number, maxRuns = 100_000) {
    const clock = fakeClock();
    const parts = fakePoolParts(clock);
    const { lines, launched } = parts;
    const rss = new Map<FakeRuntime, number>();
    const pool = createRunnerPool({
      ...parts.options,
      count,
      keep: 1,
      maxRuns,
      runTimeoutMs: 30_000,
      launch: async (slot: any) => {
        const runtime = await parts.options.launch(slot);
        rss.set(runtime, 62 * MIB);
        return runtime;
      },
      watch: () => {},
      rssOf: (runtime: any) => rss.get(runtime),
    });
    const probe = () => {
      for (const slot of pool.slots)
        if (slot.runtime) slot.runtime.lastHeaders = countHeaders((slot.runtime as any).counts);
    };
    return { clock, lines, launched, rss, pool, probe };
  }

  it("asks, drains and replaces it; the fresh one stays until it runs something", async () => {
    const { clock, lines, launched, rss, pool: p, probe } = grownPool(3);
    await p.start();
    void p.retireLoop();
    expect(launched).toHaveLength(1);
    const first = launched[0]!;
    probe();
    await clock.advance(CHECK_EVERY_MS);
    // A burst: runs begun, the runner grows to 130 MiB; then nothing.
    first.counts = { begun: 400, underWay: 0, retiring: false };
    rss.set(first, 130 * MIB);
    probe();
    await clock.advance(CHECK_EVERY_MS);
    await clock.advance(GROWN_IDLE_MS - CHECK_EVERY_MS);
    expect(first.killedBecause).toBe(undefined);
    await clock.advance(CHECK_EVERY_MS * 2 + 2_000);
    expect(first.killedBecause).toBe("it was retired");
    expect(launched).toHaveLength(2);
    expect(p.slots[0]!.runtime).toBe(launched[1]);
    expect(lines.join("\n")).toMatch(/runner 1 is retired after 400 runs, none under way/);
    // The fresh runner weighs what it weighs; with no run it is never retired for it.
    rss.set(launched[1]!, 140 * MIB);
    probe();
    await clock.advance(10 * GROWN_IDLE_MS);
    expect(launched).toHaveLength(2);
  });

  it.each([
    ["a single slot", 1, 100_000],
    ["SANDBOX_RUNNER_MAX_RUNS=0 (never retire)", 3, 0],
  ])("with %s nothing is retired for its size", async (_, count, maxRuns) => {
    const { clock, launched, rss, pool: p, probe } = grownPool(count, maxRuns);
    await p.start();
    void p.retireLoop();
    probe();
    await clock.advance(CHECK_EVERY_MS);
    launched[0]!.counts = { begun: 400, underWay: 0, retiring: false };
    rss.set(launched[0]!, 200 * MIB);
    probe();
    await clock.advance(10 * GROWN_IDLE_MS);
    expect({ launched: launched.length, killed: launched[0]!.killedBecause }).toEqual({
      launched: 1,
      killed: undefined,
    });
  });
});
