/**
 * The runner pool's decisions (cli/local-server/runners/runner-pool.mjs), with fake runtimes and a fake
 * clock: a retirement whose runs stay counted under way (runs the host gave up on) ends at its
 * deadline, so retirements go on; runners found retiring unasked are all replaced at once, so
 * the pool is never left with every runner retiring; a failing runner is replaced, retried less
 * and less often, and stops the server after five failures in a row.
 */
import { describe, expect, it } from "vitest";
import {
  IDLE_END_MS,
  SPARE_IDLE_END_MS,
} from "../../../../cli/local-server/runners/idle-runner-end.mjs";
import {
  RUNNER_FAILURES,
  createRunnerPool,
} from "../../../../cli/local-server/runners/runner-pool.mjs";
import { DRAIN_MARGIN_MS } from "../../../../cli/local-server/runners/slot-retirement.mjs";
import { PREPARE_AFTER_MS } from "../../../../cli/local-server/runners/prepared-replacement.mjs";
import {
  ANSWER_GRACE_MS,
  CHECK_EVERY_MS,
} from "../../../../cli/local-server/runners/runner-retirement.mjs";
import { fakeClock } from "./fake-clock";
import { fakePoolParts } from "./fake-pool";
import { countHeaders, fakeRuntime, type FakeRuntime } from "./fake-runtime";

const RUN_TIMEOUT_MS = 30_000;

/**
 * A pool of `count` fake runners; each launch starts at once unless `failLaunches` says so.
 * `keep` below `count`, or a `spare`, makes it elastic: `doorbells` holds each slot's open
 * doorbell (its ring: what a host connection there does).
 */
function poolOf(
  count: number,
  {
    maxRuns = 20,
    failLaunches = 0,
    keep = count,
    spare = 0,
    aside = false,
    asideStarts = async () => {},
  } = {},
) {
  const clock = fakeClock();
  const parts = fakePoolParts(clock);
  const { doorbells, lines, failed, launched, stuck } = parts;
  let failing = failLaunches;
  /** Runners started beside a slot's (prepared replacements), and those moved onto a slot. */
  const prepared: FakeRuntime[] = [];
  const promoted: FakeRuntime[] = [];
  const pool = createRunnerPool({
    ...parts.options,
    count,
    keep,
    spare,
    maxRuns,
    runTimeoutMs: RUN_TIMEOUT_MS,
    launch: async (slot: any) => {
      if (failing > 0) {
        failing--;
        return null;
      }
      return parts.options.launch(slot);
    },
    ...(aside && {
      launchAside: async (slot: any) => {
        const runtime = fakeRuntime(`runner ${slot.index}`);
        prepared.push(runtime);
        // A start takes its time (0.3–7 s on a loaded machine): the test says when it is ready.
        await asideStarts();
        return { runtime: runtime as any, promote: () => void promoted.push(runtime) };
      },
    }),
  });
  /** What the watchdog's probes would record: each live runner's counts, and when it answered. */
  const probe = () => {
    for (const slot of pool.slots)
      if (slot.runtime && (slot.runtime as any).answers) {
        slot.runtime.lastHeaders = countHeaders((slot.runtime as any).counts);
        slot.runtime.lastAnswer = clock.now();
      }
  };
  /** The host connects to slot `index` (its doorbell rings, if it has one). */
  const ring = async (index: number) => {
    doorbells.get(index)?.();
    await clock.advance(0);
  };
  return {
    clock,
    pool,
    lines,
    failed,
    launched,
    stuck,
    probe,
    doorbells,
    ring,
    prepared,
    promoted,
  };
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

  it("every runner found retiring unasked in one look is replaced from that look, together", async () => {
    const { pool, clock, launched, lines, probe } = poolOf(3, { maxRuns: 2_000 });
    await pool.start();
    void pool.retireLoop();
    // A burst of POST /retire reached every runner between two looks (e2e retire-storm).
    for (const runtime of launched) runtime.counts = { begun: 5, underWay: 0, retiring: true };
    probe();
    // One look, the drained runners' grace, and their fresh starts: not one look per runner.
    await clock.advance(CHECK_EVERY_MS + ANSWER_GRACE_MS + 10);
    expect(launched.slice(0, 3).map((r) => r.killedBecause)).toEqual([
      "it was retired",
      "it was retired",
      "it was retired",
    ]);
    expect(lines.filter((l) => l.includes("without the supervisor asking"))).toHaveLength(3);
    expect(launched).toHaveLength(6);
    expect(pool.slots.map((slot: any) => slot.runtime)).toEqual(launched.slice(3));
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

  it(`runners that fail after starting never stop the server; ${RUNNER_FAILURES} failed starts do`, async () => {
    // Any client can send a program that holds its runner (a backtracking /i regex) or crashes
    // it; each fresh runner failing that way within a minute of its start counted toward the
    // stop, so 10–13 such programs in a row stopped `npm start` ("runner 2 failed 5 times in a
    // row; stopping."). The stop is for a slot whose runner cannot start.
    const clock = fakeClock();
    const parts = fakePoolParts(clock);
    const { launched, failed, lines } = parts;
    let startsFail = false;
    const pool = createRunnerPool({
      ...parts.options,
      count: 1,
      launch: async (slot: any) => (startsFail ? null : parts.options.launch(slot)),
      counts: async () => null,
    });
    await pool.start();
    // Every new runner dies right after it starts, three times the limit.
    for (let i = 0; i < 3 * RUNNER_FAILURES; i++) {
      launched.at(-1)!.exit();
      await clock.advance(2_000);
    }
    expect(failed).toEqual([]);
    expect(launched).toHaveLength(3 * RUNNER_FAILURES + 1);
    expect(pool.slots[0]!.runtime?.isRunning()).toBe(true);
    // Now no runner starts any more: the slot cannot run, and the server stops.
    startsFail = true;
    launched.at(-1)!.exit();
    await clock.advance(30_000);
    expect(failed).toEqual([1]);
    expect(lines.at(-1)).toContain(`runner 1 failed ${RUNNER_FAILURES} times in a row; stopping.`);
  });

  it("only the server's start waits for a runner's first answer; later runners are watched as they listen", async () => {
    // A runner started on demand, or after a failure, is reached by the host's runs as soon as
    // it listens. Its launch waited for its first /health answer too, and a blocking program
    // that began before that answer held it unwatched for the 120 s a start may take (CI,
    // 2026-12-06, e2e fair-share: the stall's run timed out at 30 s, the runner stayed held into
    // the next round, and that round's runs found every runner held).
    const clock = fakeClock();
    const parts = fakePoolParts(clock);
    const asked: [string, boolean][] = [];
    const since = new Map<unknown, number>();
    const pool = createRunnerPool({
      ...parts.options,
      count: 2,
      keep: 1,
      launch: async (slot: any, _onCrash: unknown, firstAnswer: boolean) => {
        asked.push([`runner ${slot.index}`, firstAnswer]);
        // A start takes its time: 1.5 s from the ask until it listens.
        if (!firstAnswer) await clock.sleep(1_500);
        return parts.options.launch(slot);
      },
      watch: (runtime: any, onStuck: (reason: string) => void, from: number) => {
        since.set(runtime, from);
        parts.options.watch(runtime, onStuck);
      },
    });
    await pool.start();
    const rungAt = clock.now();
    parts.doorbells.get(2)!();
    await clock.advance(2_000);
    expect(asked).toEqual([
      ["runner 1", true],
      ["runner 2", false],
    ]);
    // Its bound counts from the ask, not from when it listened (a stall there since then
    // held it 1–3 s past the bound, into e2e fair-share's next round).
    expect(since.get(parts.launched[1])).toBe(rungAt);
    expect(since.get(parts.launched[0])).toBeLessThanOrEqual(rungAt);
    // Watched at once: held before any answer, it is replaced like any stuck runner, as often
    // as clients send such programs, and never counted as a failed start (which stops the
    // server after RUNNER_FAILURES in a row).
    for (let i = 0; i < RUNNER_FAILURES + 1; i++) {
      const held = parts.launched.at(-1)!;
      parts.stuck.get(held)!("it has not answered /health for 10 s");
      await clock.advance(2_000);
      expect(parts.launched.at(-1)).not.toBe(held);
      expect(held.killedBecause).toBe("it has not answered /health for 10 s");
      expect(asked.at(-1)).toEqual(["runner 2", false]);
    }
    expect(parts.failed).toEqual([]);
    expect(pool.slots[1]!.runtime?.isRunning()).toBe(true);
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

describe("the elastic runner pool (issue #43: memory follows the work)", () => {
  const running = (pool: any) =>
    pool.slots.filter((slot: any) => slot.runtime?.isRunning()).map((slot: any) => slot.index);

  it("starts the kept runners only; the other slots and the spare get a doorbell", async () => {
    const { pool, doorbells } = poolOf(3, { keep: 1, spare: 1 });
    expect(await pool.start()).toBe(true);
    expect(running(pool)).toEqual([1]);
    expect([...doorbells.keys()]).toEqual([2, 3, 4]);
    // The host binds every slot, the spare last.
    expect(pool.addresses()).toHaveLength(4);
    expect(pool.slots.map((slot: any) => slot.spare)).toEqual([false, false, false, true]);
  });

  it("a ring starts that slot's runner once, and its doorbell closes first", async () => {
    const { pool, doorbells, ring, launched, lines } = poolOf(3, { keep: 1, spare: 1 });
    await pool.start();
    await ring(2);
    await ring(2);
    // Runner 2, and the warm spare after it (below).
    expect(running(pool)).toEqual([1, 2, 4]);
    expect(launched.map((r) => r.name)).toEqual(["runner 1", "runner 2", "runner 4"]);
    expect(doorbells.has(2)).toBe(false);
    expect(lines.join("\n")).toContain("runner 2 is started (2 of at most 3)");
  });

  it("the spare's ring starts an empty regular slot first; the spare only beyond the count", async () => {
    const { pool, ring, lines } = poolOf(3, { keep: 1, spare: 1 });
    await pool.start();
    await ring(4);
    // Slot 2 for the ring; the spare then only as the warm spare, after it (below).
    expect(running(pool)).toEqual([1, 2, 4]);
    expect(lines.join("\n")).toContain("runner 2 is started (2 of at most 3)");
    expect(lines.join("\n")).not.toContain("the host found every runner held");
    // Every regular slot running: the spare's ring starts the spare itself.
    const full = poolOf(1, { keep: 1, spare: 1 });
    await full.pool.start();
    await full.ring(2);
    expect(running(full.pool)).toEqual([1, 2]);
    expect(full.lines.join("\n")).toContain(
      "a spare runner (2, beyond the 1 configured) is started: the host found every runner held",
    );
  });

  it("the warm spare: started after the first runner the host asks for, kept while one runs", async () => {
    // The spare is taken only when every regular runner may be held (runner-placement.ts); kept
    // running while the pool is busy, it serves such a run at once, where before the run waited
    // for its start (0.6–3 s on a loaded machine; e2e fair-share).
    const starts: string[] = [];
    const { pool, clock, ring, probe, launched, lines } = poolOf(3, {
      keep: 1,
      spare: 1,
      maxRuns: 0,
    });
    await pool.start();
    void pool.retireLoop();
    expect(running(pool)).toEqual([1]);
    await ring(2);
    for (const r of launched) starts.push(r.name);
    // One start at a time: runner 2 first (a run waits for it), the spare after it.
    expect(starts).toEqual(["runner 1", "runner 2", "runner 4"]);
    expect(lines.join("\n")).toContain(
      "the spare runner (4, beyond the 3 configured) is started beside them",
    );
    // Runner 2 keeps beginning runs: the idle spare stays, past SPARE_IDLE_END_MS.
    for (let t = 0; t < SPARE_IDLE_END_MS * 2; t += CHECK_EVERY_MS) {
      launched[1]!.counts.begun++;
      probe();
      await clock.advance(CHECK_EVERY_MS);
    }
    expect(running(pool)).toEqual([1, 2, 4]);
    // Runner 2 idle: it ends after IDLE_END_MS, and the spare with it (the pool is idle again).
    for (let t = 0; t < IDLE_END_MS + 4 * CHECK_EVERY_MS + 4_000; t += CHECK_EVERY_MS) {
      probe();
      await clock.advance(CHECK_EVERY_MS);
    }
    expect(launched[1]!.killedBecause).toBe("it was idle");
    expect(launched[2]!.killedBecause).toBe("it was idle");
    expect(running(pool)).toEqual([1]);
  });

  it("a runner idle for IDLE_END_MS is ended and its slot gets its doorbell back; kept ones stay", async () => {
    const { pool, clock, ring, probe, launched, doorbells, lines } = poolOf(3, {
      keep: 1,
      maxRuns: 0,
    });
    await pool.start();
    void pool.retireLoop();
    await ring(2);
    await ring(3);
    // Runner 2 keeps beginning runs; runner 3 and the kept runner 1 begin none.
    for (let t = 0; t < IDLE_END_MS + 4 * CHECK_EVERY_MS; t += CHECK_EVERY_MS) {
      launched[1]!.counts.begun++;
      probe();
      await clock.advance(CHECK_EVERY_MS);
    }
    expect(launched[2]!.killedBecause).toBe("it was idle");
    expect(launched[1]!.isRunning()).toBe(true);
    expect(launched[0]!.isRunning()).toBe(true);
    expect(running(pool)).toEqual([1, 2]);
    expect(doorbells.has(3)).toBe(true);
    expect(lines.join("\n")).toMatch(/runner 3 is ended: no run for 30 s/);
    // It was asked to retire first: a run sent to it meanwhile went to another runner.
    expect(launched[2]!.counts.retiring).toBe(true);
    // The host asks again: a fresh one.
    await ring(3);
    expect(running(pool)).toEqual([1, 2, 3]);
  });

  it("a runner with a run under way is not ended, however long the run", async () => {
    const { pool, clock, ring, probe, launched } = poolOf(2, { keep: 1 });
    await pool.start();
    void pool.retireLoop();
    await ring(2);
    launched[1]!.counts = { begun: 1, underWay: 1, retiring: false };
    probe();
    await clock.advance(IDLE_END_MS * 3);
    expect(launched[1]!.isRunning()).toBe(true);
    launched[1]!.counts.underWay = 0;
    probe();
    await clock.advance(IDLE_END_MS + 2 * CHECK_EVERY_MS + 2_000);
    expect(launched[1]!.killedBecause).toBe("it was idle");
  });

  it("a spare idle for SPARE_IDLE_END_MS is ended, sooner than a regular runner", async () => {
    const { pool, clock, ring, probe, launched } = poolOf(1, { keep: 1, spare: 1 });
    await pool.start();
    void pool.retireLoop();
    await ring(2);
    expect(running(pool)).toEqual([1, 2]);
    probe();
    await clock.advance(SPARE_IDLE_END_MS + 2 * CHECK_EVERY_MS + 2_000);
    expect(launched[1]!.killedBecause).toBe("it was idle");
    expect(running(pool)).toEqual([1]);
  });

  it("a ring while a slot's runner is being replaced starts no second runner there", async () => {
    // Real starts take a while (0.5–2 s): the slot is empty meanwhile. A spare's ring then (the
    // host found no runner free while runner 1 was replaced) started slot 1 a second time; the
    // loser kept running unwatched, holding its blocked program and the host's kept connection,
    // so every later run on slot 1 timed out (found with a blocking /i regex and npm start).
    const clock = fakeClock();
    const parts = fakePoolParts(clock);
    const { doorbells, launched, stuck } = parts;
    const pool = createRunnerPool({
      ...parts.options,
      count: 1,
      keep: 1,
      spare: 1,
      launch: async (slot: any) => {
        await clock.sleep(1_000);
        return parts.options.launch(slot);
      },
      askToRetire: async () => true,
      counts: async () => null,
    });
    const started = pool.start();
    await clock.advance(1_000);
    expect(await started).toBe(true);
    stuck.get(launched[0]!)!("it stopped answering");
    await clock.advance(100);
    // The replacement is starting; the host, finding no runner, rings the spare.
    doorbells.get(2)!();
    await clock.advance(5_000);
    const alive = launched.filter((runtime) => runtime.isRunning());
    const held = pool.slots.map((slot: any) => slot.runtime).filter(Boolean);
    // Every runner still running is a slot's: none left outside the pool.
    expect(alive.every((runtime) => held.includes(runtime))).toBe(true);
    expect(launched.filter((r) => r.name === "runner 1" && r.isRunning())).toHaveLength(1);
  });

  it("a runner that is no slot's any more is ended when found stuck, not left running", async () => {
    const { pool, clock, launched, stuck } = poolOf(1);
    await pool.start();
    const first = launched[0]!;
    // Taken off its slot (as a second start of the slot did), then found stuck.
    pool.slots[0]!.runtime = null;
    stuck.get(first)!("it stopped answering");
    await clock.advance(10);
    expect(first.killedBecause).toBe("it stopped answering");
  });

  it("stop closes every doorbell, and a ring after it starts nothing", async () => {
    const { pool, doorbells, ring, launched } = poolOf(3, { keep: 1, spare: 1 });
    await pool.start();
    const rings = [...doorbells.values()];
    pool.stop();
    expect(doorbells.size).toBe(0);
    rings[0]!();
    await ring(2);
    expect(launched).toHaveLength(1);
  });
});

describe("prepared replacements (slot-preparation.mjs)", () => {
  /** Runs the pool's loops for `ms`, the watchdog's probes recording answers every 500 ms. */
  async function run(env: ReturnType<typeof poolOf>, ms: number) {
    for (let t = 0; t < ms; t += 500) {
      env.probe();
      await env.clock.advance(500);
    }
  }

  it("a runner silent for PREPARE_AFTER_MS gets a replacement beside it, which takes its place at once", async () => {
    const env = poolOf(2, { aside: true, maxRuns: 0 });
    const { pool, launched, prepared, promoted, stuck, lines } = env;
    await pool.start();
    void pool.retireLoop();
    await run(env, 2_000);
    expect(prepared).toHaveLength(0);
    // Runner 1's thread is held: its probes go unanswered.
    launched[0]!.answers = false;
    await run(env, PREPARE_AFTER_MS - 1_000);
    expect(prepared).toHaveLength(0);
    await run(env, 1_500);
    expect(prepared.map((r) => r.name)).toEqual(["runner 1"]);
    expect(lines.join("\n")).toMatch(
      /runner 1 has not answered for \d+ s; a replacement stands ready/,
    );
    // Found stuck (the watchdog's 10 s): the prepared runner takes the slot, no launch then.
    stuck.get(launched[0]!)!("it stopped answering (no /health answer for 10 s)");
    await env.clock.advance(0);
    expect(launched[0]!.killedBecause).toMatch(/stopped answering/);
    expect(promoted).toEqual([prepared[0]]);
    expect(pool.slots[0]!.runtime).toBe(prepared[0]);
    expect(launched).toHaveLength(2);
    expect(lines.join("\n")).toContain("serves again at once");
    // It is watched as any runner, and not taken for silent: no second one is prepared.
    expect(stuck.has(prepared[0]!)).toBe(true);
    await run(env, 2_000);
    expect(prepared).toHaveLength(1);
  });

  it("a runner that answers again gives its prepared replacement up", async () => {
    const env = poolOf(2, { aside: true, maxRuns: 0 });
    const { pool, launched, prepared, promoted, stuck } = env;
    await pool.start();
    void pool.retireLoop();
    launched[1]!.answers = false;
    await run(env, PREPARE_AFTER_MS + 1_000);
    expect(prepared).toHaveLength(1);
    // It was busy, not held: it answers, and the replacement is ended.
    launched[1]!.answers = true;
    await run(env, 1_000);
    expect(prepared[0]!.killedBecause).toBe("its runner answers again");
    expect(pool.slots[1]!.prepared).toBeNull();
    // The output says so: its last word on it is not "a replacement stands ready beside it".
    expect(env.lines.at(-1)).toMatch(
      /runner 2 answers again; the replacement prepared for it \(workerd pid \d+\) is ended/,
    );
    // A replacement later starts afresh (none prepared).
    stuck.get(launched[1]!)!("it crashed");
    await env.clock.advance(0);
    expect(promoted).toHaveLength(0);
    expect(launched).toHaveLength(3);
  });

  it("a replacement ready after its runner answered again is ended at once, never announced", async () => {
    let ready = () => {};
    const env = poolOf(2, {
      aside: true,
      maxRuns: 0,
      asideStarts: () => new Promise<void>((resolve) => (ready = resolve)),
    });
    const { pool, launched, prepared, lines } = env;
    await pool.start();
    void pool.retireLoop();
    launched[1]!.answers = false;
    await run(env, PREPARE_AFTER_MS + 1_000);
    expect(prepared).toHaveLength(1);
    expect(pool.slots[1]!.preparing).toBe(true);
    // The program let go of the thread while its replacement was starting.
    launched[1]!.answers = true;
    await run(env, 1_000);
    ready();
    await env.clock.advance(0);
    expect(prepared[0]!.killedBecause).toBe("it was not needed");
    expect(pool.slots[1]!.prepared).toBeNull();
    expect(lines.join("\n")).not.toMatch(/stands ready/);
  });

  it("a replacement ready after its runner was replaced by a fresh one is ended, not given to it", async () => {
    let ready = () => {};
    const env = poolOf(2, {
      aside: true,
      maxRuns: 0,
      asideStarts: () => new Promise<void>((resolve) => (ready = resolve)),
    });
    const { pool, launched, prepared, stuck, lines } = env;
    await pool.start();
    void pool.retireLoop();
    launched[1]!.answers = false;
    await run(env, PREPARE_AFTER_MS + 1_000);
    expect(prepared).toHaveLength(1);
    // Ended at the watchdog's 10 s before its replacement was ready: a fresh one took the slot,
    // and is itself held at once (it does not answer either).
    stuck.get(launched[1]!)!("it stopped answering (no /health answer for 10 s)");
    await env.clock.advance(0);
    expect(launched).toHaveLength(3);
    launched[2]!.answers = false;
    ready();
    await env.clock.advance(0);
    expect(prepared[0]!.killedBecause).toBe("it was not needed");
    expect(pool.slots[1]!.prepared).toBeNull();
    expect(lines.join("\n")).not.toMatch(/has not answered for 0 s/);
  });

  it("without launchAside nothing is prepared", async () => {
    const env = poolOf(1, { maxRuns: 0 });
    await env.pool.start();
    void env.pool.retireLoop();
    env.launched[0]!.answers = false;
    await run(env, PREPARE_AFTER_MS * 2);
    expect(env.pool.slots[0]!.prepared).toBeNull();
    expect(env.pool.slots[0]!.preparing).toBe(false);
  });
});
