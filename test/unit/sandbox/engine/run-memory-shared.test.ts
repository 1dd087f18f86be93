/**
 * Two runs under way in one shared-worker engine: the one that grows the engine past its own
 * share (memory-gate.ts) is stopped for memory, and the one under its share runs on. Before, a
 * refused growth with two runs under way stopped neither: the hog caught its out-of-memory
 * errors and kept what it held, and its honest neighbour's next allocation ran out of memory.
 *
 * Plain Node with the real QuickJS WebAssembly and a gated engine instance (as the runner's).
 * The order of the two runs' turns is fixed by their host calls (answered on the next
 * microtask), not by time. The hog is bounded: 400 turns of one 4 MiB flat copy.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import {
  ENGINE_ROOM_BYTES,
  MemoryGate,
  shareRoomBytes,
} from "../../../../sandbox/engine/memory-gate";
import { WarmEngine } from "../../../../sandbox/engine/warm-engine";
import type { EngineRunRequest } from "../../../../sandbox/engine/protocol";

const MIB = 1_048_576;
const LIMIT = 32 * MIB;
/** The engine's memory before any run (emscripten's default for this build). */
const FIRST_BYTES = 16 * MIB;

/** Keeps flat copies of a 4 MiB string (ropes the engine's walk does not count), host call every 4. */
const HOG = `const big = "x".repeat(4 * 1048576); const kept = [];
  for (let n = 0; n < 400; n++) {
    try { const s = big + n; kept.push(s.charCodeAt(5) + s); } catch {}
    if (n % 4 === 3) await codemode.echo(n);
  }
  return "kept " + kept.length`;

/** Holds 16 MiB (half its limit), a MiB a turn between host calls, then counts. */
const HONEST = `const parts = [];
  for (let i = 0; i < 16; i++) { await codemode.echo(i); parts.push(new Uint8Array(1048576)); }
  let s = 0; for (let i = 0; i < 2000000; i++) s += i % 7;
  return parts.length * 10000000 + s`;

/** Holds 28 MiB (under its limit) across two host calls, so that eight of them overlap. */
const HOLDER = `const p = [];
  for (let i = 0; i < 28; i++) p.push(new Uint8Array(1048576));
  await codemode.echo(1); await codemode.echo(2); return p.length`;

async function gatedEngine() {
  const gate = new MemoryGate();
  const quickjs = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmMemory: gate.memory }),
  );
  return { engine: new WarmEngine(quickjs, gate), gate };
}

/** Starts `code` in `engine`; its run (not awaited). */
function start(engine: WarmEngine, code: string, changes: Partial<EngineRunRequest> = {}) {
  return new EngineRun(
    engine,
    engineRunRequest(code, { timeoutMs: 30_000, memoryBytes: LIMIT, ...changes }),
    [],
    async (_ns, _name, args) => args,
  );
}

async function finish(run: EngineRun) {
  const result = await run.result;
  expect(run.dispose()).toBe(true);
  return result;
}

describe("shared worker engine: two runs under way, the one past its share pays", () => {
  it.each([
    ["the honest run first", true],
    ["the hog first", false],
  ])(
    "stops the hog for memory and answers the honest run (%s)",
    async (_label, honestFirst) => {
      const { engine, gate } = await gatedEngine();
      const first = start(engine, honestFirst ? HONEST : HOG);
      const second = start(engine, honestFirst ? HOG : HONEST);
      const [honest, hog] = honestFirst ? [first, second] : [second, first];
      const [honestResult, hogResult] = await Promise.all([finish(honest), finish(hog)]);
      // Before: the hog answered "kept …" and the honest run failed with "out of memory".
      expect(hogResult, JSON.stringify(hogResult).slice(0, 300)).toMatchObject({
        stop: "memory",
        message: expect.stringContaining(`Memory limit of ${LIMIT} bytes exceeded`),
      });
      expect(typeof honestResult, JSON.stringify(honestResult).slice(0, 300)).toBe("string");
      expect(JSON.parse(honestResult as string)).toMatchObject({ result: "165999995" });
      // The hog grew the engine by its own room at most (and the honest run by what it holds),
      // not to the gate of the two runs (64 + 4 × 32 MiB), where every allocation fails.
      expect(gate.memory.buffer.byteLength).toBeLessThanOrEqual(
        FIRST_BYTES + shareRoomBytes(LIMIT) + 2 * LIMIT,
      );
      expect(gate.memory.buffer.byteLength).toBeLessThan(ENGINE_ROOM_BYTES + 4 * LIMIT);
    },
    60_000,
  );

  it("stops a hog that takes room the engine already has, and answers its neighbour", async () => {
    const { engine, gate } = await gatedEngine();
    // Eight runs holding 28 MiB each at once grow the engine far past the gate of two.
    const holders = Array.from({ length: 8 }, () => start(engine, HOLDER));
    for (const holder of holders) expect(typeof (await finish(holder))).toBe("string");
    const grown = gate.memory.buffer.byteLength;
    expect(grown).toBeGreaterThan(ENGINE_ROOM_BYTES + 4 * LIMIT);
    const hog = start(engine, HOG);
    const honest = start(engine, HONEST);
    const [hogResult, honestResult] = await Promise.all([finish(hog), finish(honest)]);
    // Before: the hog kept 56 ropes (224 MiB) without growing the engine and answered; the
    // honest run failed with "out of memory".
    expect(hogResult, JSON.stringify(hogResult).slice(0, 300)).toMatchObject({ stop: "memory" });
    expect(typeof honestResult, JSON.stringify(honestResult).slice(0, 300)).toBe("string");
    expect(JSON.parse(honestResult as string)).toMatchObject({ result: "165999995" });
    // Past the gate only by the honest run's room, while the hog was being stopped.
    expect(gate.memory.buffer.byteLength).toBeLessThanOrEqual(grown + shareRoomBytes(LIMIT));
  }, 60_000);
});
