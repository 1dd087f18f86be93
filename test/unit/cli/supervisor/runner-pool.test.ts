/**
 * The runner pool's decisions (cli/local-server/runner-pool.mjs), with fake runtimes and a fake
 * clock: a retirement whose runs stay counted under way (runs the host gave up on) ends at its
 * deadline, so retirements go on; runners found retiring unasked are all replaced at once, so
 * the pool is never left with every runner retiring; a failing runner is replaced, retried less
 * and less often, and stops the server after five failures in a row.
 */
import { describe, expect, it } from "vitest";
import {
  DRAIN_MARGIN_MS,
  RUNNER_FAILURES,
  createRunnerPool,
} from "../../../../cli/local-server/runner-pool.mjs";
import { CHECK_EVERY_MS } from "../../../../cli/local-server/runner-retirement.mjs";
import { fakeClock } from "./fake-clock";
import { countHeaders, fakeRuntime, type FakeRuntime } from "./fake-runtime";

const RUN_TIMEOUT_MS = 30_000;

/** A pool of `count` fake runners; each launch starts at once unless `failLaunches` says so. */
function poolOf(count: number, { maxRuns = 20, failLaunches = 0 } = {}) {
  const clock = fakeClock();
  const lines: string[] = [];
  const failed: number[] = [];
  const launched: FakeRuntime[] = [];
  const stuck = new Map<FakeRuntime, (reason: string) => void>();
  let failing = failLaunches;
  const pool = createRunnerPool({
    count,
    maxRuns,
    runTimeoutMs: RUN_TIMEOUT_MS,
    clock,
    label: "test",
    log: (line: string) => lines.push(line),
    fail: (code: number) => failed.push(code),
    addressOf: (index: number) => `unix:/private/runner-${index}.sock:0`,
    launch: async (slot: any) => {
      if (failing > 0) {
        failing--;
        return null;
      }
      const runtime = fakeRuntime(`runner ${slot.index}`);
      launched.push(runtime);
      return runtime as any;
    },
    watch: (runtime: any, onStuck: (reason: string) => void) => stuck.set(runtime, onStuck),
    askToRetire: async (runtime: any) => {
      runtime.counts.retiring = true;
      return true;
    },
    counts: async (runtime: any) => (runtime.answers ? { ...runtime.counts } : null),
  });
  /** What the watchdog's probes would record: each live runner's counts. */
  const probe = () => {
    for (const slot of pool.slots)
      if (slot.runtime) slot.runtime.lastHeaders = countHeaders((slot.runtime as any).counts);
  };
  return { clock, pool, lines, failed, launched, stuck, probe };
}

const live = (pool: any) => pool.slots.map((slot: any) => slot.runtime?.name ?? null);

describe("the runner pool", () => {
  it("gives the host each slot's RPC address, the same for its next runner", async () => {
    const { pool, stuck, clock, launched } = poolOf(2);
    expect(await pool.start()).toBe(true);
    const addresses = pool.addresses();
    expect(addresses).toEqual(["unix:/private/runner-1.sock:0", "unix:/private/runner-2.sock:0"]);
    stuck.get(launched[0]!)!("it stopped answering");
    await clock.advance(1_000);
    expect(launched).toHaveLength(3);
    expect(pool.slots[0]!.runtime).toBe(launched[2]);
    expect(pool.addresses()).toEqual(addresses);
  });

  it("a retirement whose runs stay under way (given up on by the host) ends at its deadline", async () => {
    const { pool, clock, launched, lines, probe } = poolOf(2, { maxRuns: 20 });
    await pool.start();
    void pool.retireLoop();
    // Runner 1 is due (its first share: 10 runs) and holds a run the host gave up on.
    launched[0]!.counts = { begun: 12, underWay: 1, retiring: false };
    probe();
    await clock.advance(CHECK_EVERY_MS);
    expect(launched[0]!.counts.retiring).toBe(true);
    await clock.advance(RUN_TIMEOUT_MS + DRAIN_MARGIN_MS - 1_000);
    expect(launched[0]!.isRunning()).toBe(true);
    await clock.advance(1_500);
    expect(launched[0]!.killedBecause).toBe("it was retired");
    expect(live(pool)).toEqual(["runner 1", "runner 2"]);
    expect(launched).toHaveLength(3);
    expect(lines.join("\n")).toMatch(/runner 1 is retired after 12 runs although 1 run is still/);
    // The next retirement is not held up: runner 2 comes due and goes.
    launched[1]!.counts = { begun: 21, underWay: 0, retiring: false };
    probe();
    await clock.advance(CHECK_EVERY_MS + 2_000);
    expect(launched[1]!.killedBecause).toBe("it was retired");
    expect(launched).toHaveLength(4);
  });

  it("a drained runner is retired after its grace, one asked retirement at a time", async () => {
    const { pool, clock, launched, probe } = poolOf(3, { maxRuns: 30 });
    await pool.start();
    void pool.retireLoop();
    for (const runtime of launched) runtime.counts = { begun: 40, underWay: 1, retiring: false };
    probe();
    await clock.advance(CHECK_EVERY_MS);
    await clock.advance(CHECK_EVERY_MS * 3);
    // All three are due, yet only one was asked: the others serve meanwhile.
    expect(launched.filter((r) => r.counts.retiring)).toHaveLength(1);
    const asked = launched.find((r) => r.counts.retiring)!;
    asked.counts.underWay = 0;
    await clock.advance(2_000);
    expect(asked.killedBecause).toBe("it was retired");
  });

  it("runners found retiring unasked are all replaced at once, never left retiring", async () => {
    const { pool, clock, launched, lines, probe } = poolOf(3, { maxRuns: 2_000 });
    await pool.start();
    void pool.retireLoop();
    // Every runner was told to retire by something else, and one holds a stuck run.
    for (const runtime of launched) runtime.counts = { begun: 5, underWay: 0, retiring: true };
    launched[2]!.counts.underWay = 1;
    probe();
    await clock.advance(CHECK_EVERY_MS * 4);
    expect(launched.slice(0, 2).map((r) => r.killedBecause)).toEqual([
      "it was retired",
      "it was retired",
    ]);
    expect(lines.filter((l) => l.includes("without the supervisor asking"))).toHaveLength(2);
    // The one with a stuck run goes at its deadline, with fresh runners serving meanwhile.
    await clock.advance(RUN_TIMEOUT_MS + DRAIN_MARGIN_MS);
    expect(launched[2]!.killedBecause).toBe("it was retired");
    expect(pool.slots.every((slot: any) => slot.runtime?.isRunning())).toBe(true);
    expect(launched).toHaveLength(6);
  });

  it("with one runner, only an unasked retirement happens", async () => {
    const { pool, clock, launched, probe } = poolOf(1, { maxRuns: 5 });
    await pool.start();
    void pool.retireLoop();
    launched[0]!.counts = { begun: 500, underWay: 0, retiring: false };
    probe();
    await clock.advance(CHECK_EVERY_MS * 5);
    expect(launched[0]!.isRunning()).toBe(true);
    launched[0]!.counts.retiring = true;
    probe();
    await clock.advance(CHECK_EVERY_MS * 2);
    expect(launched[0]!.killedBecause).toBe("it was retired");
  });

  it("a runner that exits is replaced; at the server's start, one that fails stops it", async () => {
    const { pool, clock, launched, lines } = poolOf(1);
    await pool.start();
    launched[0]!.exit();
    await clock.advance(10);
    expect(launched).toHaveLength(2);
    expect(lines.join("\n")).toContain("runner 1 is replaced because it exited");
    expect(await poolOf(1, { failLaunches: 1 }).pool.start()).toBe(false);
  });

  it(`a slot failing ${RUNNER_FAILURES} times in a row stops the server`, async () => {
    const { pool, clock, launched, failed, lines } = poolOf(1);
    await pool.start();
    // One that served past a minute starts the count again.
    await clock.advance(61_000);
    launched[0]!.exit();
    await clock.advance(10);
    expect(pool.slots[0]!.failures).toBe(1);
    await clock.advance(61_000);
    // The first runner dies, then every new one dies right after it starts.
    for (let i = 0; i < RUNNER_FAILURES; i++) {
      launched.at(-1)!.exit();
      await clock.advance(2_000);
    }
    expect(failed).toEqual([1]);
    expect(lines.at(-1)).toContain(`runner 1 failed ${RUNNER_FAILURES} times in a row; stopping.`);
  });

  it("a replacement that fails to start is retried, not left empty", async () => {
    const clockless = poolOf(1);
    await clockless.pool.start();
    // Later starts fail three times, then succeed.
    let failures = 3;
    let starts = 0;
    const original = clockless.launched;
    const pool = createRunnerPool({
      count: 1,
      clock: clockless.clock,
      label: "test",
      log: () => {},
      fail: () => {},
      addressOf: () => "unix:/private/runner-1.sock:0",
      launch: async () => {
        if (starts++ > 0 && failures-- > 0) return null;
        const runtime = fakeRuntime("runner 1");
        original.push(runtime);
        return runtime as any;
      },
      watch: () => {},
      askToRetire: async () => true,
      counts: async () => null,
    });
    await pool.start();
    const first = original.at(-1)!;
    first.exit();
    await clockless.clock.advance(5_000);
    expect(pool.slots[0]!.runtime).not.toBeNull();
    expect(pool.slots[0]!.runtime).not.toBe(first);
    // Four failures in a row so far (the exit and three failed starts): a fifth soon would stop it.
    expect(pool.slots[0]!.failures).toBe(4);
  });
});
