/**
 * The runner pool warms runners (cli/local-server/runners/runner-pool.mjs, stable-warmth.mjs), with fake
 * runtimes and a fake clock: once a runner reports holding the shared worker's code, the pool
 * reads it from that runner and sends it to every other runner, to each runner it starts (the
 * warm spare) and to each replacement prepared beside a silent runner, before it takes its place;
 * while no runner holds any (isolate-per-run), nothing is read or sent.
 */
import { describe, expect, it } from "vitest";
import { createRunnerPool } from "../../../../cli/local-server/runners/runner-pool.mjs";
import { PREPARE_LOOK_MS } from "../../../../cli/local-server/runners/slot-preparation.mjs";
import { PREPARE_AFTER_MS } from "../../../../cli/local-server/runners/prepared-replacement.mjs";
import { fakeClock } from "./fake-clock";
import { fakePoolParts } from "./fake-pool";
import { countHeaders, fakeRuntime, type FakeRuntime } from "./fake-runtime";

const HASH = "c".repeat(64);
const CODE = Buffer.from('{"mainModule":"runner.js"}');

function warmingPool(count: number, spare = 0, keepWarmSpare = false) {
  const clock = fakeClock();
  const parts = fakePoolParts(clock);
  const { launched, doorbells, lines } = parts;
  const prepared: FakeRuntime[] = [];
  const reads: string[] = [];
  const warmed: string[] = [];
  const pool = createRunnerPool({
    ...parts.options,
    count,
    keep: 1,
    spare,
    keepWarmSpare,
    launchAside: async (slot: any) => {
      const runtime = fakeRuntime(`runner ${slot.index} (aside)`);
      prepared.push(runtime);
      return { runtime: runtime as any, promote: () => {} };
    },
    watch: () => {},
    askToRetire: async () => true,
    readCode: async (runtime: any, hash: string) => {
      reads.push(`${runtime.name}:${hash === HASH}`);
      return CODE;
    },
    warm: async (runtime: any, code: Buffer) => {
      warmed.push(`${runtime.name}:${code === CODE}`);
      return true;
    },
  });
  /** Each runner's /health as the watchdog would record it, `stable` for those that hold code. */
  const probe = (holders: FakeRuntime[] = []) => {
    for (const slot of pool.slots)
      if (slot.runtime) {
        const runtime = slot.runtime as unknown as FakeRuntime;
        runtime.lastHeaders = {
          ...countHeaders(runtime.counts),
          "x-runner-stable": holders.includes(runtime) ? HASH : "",
        };
        runtime.lastAnswer = clock.now();
      }
  };
  return { clock, pool, launched, prepared, doorbells, reads, warmed, lines, probe };
}

describe("the runner pool's warm runners", () => {
  it("reads and sends nothing while no runner holds stable code", async () => {
    const { pool, clock, doorbells, reads, warmed, probe } = warmingPool(3, 1);
    await pool.start();
    void pool.retireLoop();
    doorbells.get(2)!();
    await clock.advance(0);
    probe();
    await clock.advance(PREPARE_LOOK_MS * 4);
    expect(reads).toEqual([]);
    expect(warmed).toEqual([]);
    pool.stop();
  });

  it("copies a runner's engine to the others, to each runner it starts, and to a prepared one", async () => {
    const { pool, clock, launched, prepared, doorbells, reads, warmed, lines, probe } = warmingPool(
      3,
      1,
    );
    await pool.start();
    void pool.retireLoop();
    // Runner 2 and the warm spare start before the host sent runner 1 the shared worker's code.
    doorbells.get(2)!();
    await clock.advance(0);
    expect(launched.map((r) => r.name)).toEqual(["runner 1", "runner 2", "runner 4"]);
    expect(warmed).toEqual([]);
    probe([launched[0]!]);
    await clock.advance(PREPARE_LOOK_MS);
    expect(reads).toEqual(["runner 1:true"]);
    expect(warmed.toSorted()).toEqual(["runner 2:true", "runner 4:true"]);
    expect(lines.some((l) => /runner 2 .* loaded the shared worker's engine/.test(l))).toBe(true);
    // Looks later send nothing again: each runner got it once.
    await clock.advance(PREPARE_LOOK_MS * 3);
    expect(reads).toHaveLength(1);
    expect(warmed).toHaveLength(2);
    // A runner started now gets it at once.
    doorbells.get(3)!();
    await clock.advance(0);
    expect(warmed).toContain("runner 3:true");
    // A replacement prepared beside a silent runner gets it before it may take its place.
    probe([launched[0]!]);
    launched[1]!.lastAnswer = clock.now() - PREPARE_AFTER_MS;
    await clock.advance(PREPARE_LOOK_MS);
    expect(prepared.map((r) => r.name)).toEqual(["runner 2 (aside)"]);
    expect(warmed).toContain("runner 2 (aside):true");
    pool.stop();
  });

  it("with keepWarmSpare, the host's code starts the spare and warms it with runner 1, kept while idle", async () => {
    const { pool, clock, launched, doorbells, warmed, lines, probe } = warmingPool(3, 1, true);
    await pool.start();
    void pool.retireLoop();
    // Idle: runner 1 only, a doorbell on every other slot.
    expect(launched.map((r) => r.name)).toEqual(["runner 1"]);
    expect(doorbells.has(4)).toBe(true);
    await pool.teach(HASH, CODE, 8_000);
    expect(launched.map((r) => r.name)).toEqual(["runner 1", "runner 4"]);
    expect(doorbells.has(4)).toBe(false);
    expect(warmed.toSorted()).toEqual(["runner 1:true", "runner 4:true"]);
    expect(lines.some((l) => /spare runner \(4, .*\) is started and kept while idle/.test(l))).toBe(
      true,
    );
    // Long idle: the spare is not ended (a spare alone would be after SPARE_IDLE_END_MS).
    for (let i = 0; i < 10; i++) {
      probe();
      await clock.advance(10_000);
    }
    expect(pool.slots[3]!.runtime).toBe(launched[1]);
    expect(pool.slots[3]!.retiring).toBe(false);
    pool.stop();
  });

  it("without keepWarmSpare, or before any code is taught, the spare does not start", async () => {
    const quiet = warmingPool(3, 1, true);
    await quiet.pool.start();
    await quiet.clock.advance(PREPARE_LOOK_MS * 4);
    expect(quiet.launched.map((r) => r.name)).toEqual(["runner 1"]);
    quiet.pool.stop();
    const plain = warmingPool(3, 1);
    await plain.pool.start();
    await plain.pool.teach(HASH, CODE, 8_000);
    expect(plain.launched.map((r) => r.name)).toEqual(["runner 1"]);
    expect(plain.warmed).toEqual(["runner 1:true"]);
    plain.pool.stop();
  });

  it("does not warm a runner being retired", async () => {
    const { pool, clock, launched, doorbells, warmed, probe } = warmingPool(3);
    await pool.start();
    void pool.retireLoop();
    doorbells.get(2)!();
    await clock.advance(0);
    pool.slots[1]!.retiring = true;
    probe([launched[0]!]);
    await clock.advance(PREPARE_LOOK_MS);
    expect(warmed).toEqual([]);
    pool.slots[1]!.retiring = false;
    await clock.advance(PREPARE_LOOK_MS);
    expect(warmed).toEqual(["runner 2:true"]);
    pool.stop();
  });
});
