/**
 * A shared-worker run may not hold more than its `memoryBytes` by work no built-in charge sees
 * (sandbox/engine/run.ts `stepOverMemory`, sandbox/engine/memory-gate.ts): objects or closures
 * pushed one by one, and ropes made flat (`(big + n).charCodeAt(0)`: two steps, a copy of `big`).
 * Before, the memory look came only after charged work: a 32 MiB run kept ~1.5 million objects
 * (143 MiB of engine memory), and 126 flat 16 MiB strings, which grew the engine to its most
 * (2 GiB) in a few hundred steps, where any other run in it ran out of memory.
 *
 * Plain Node with the real QuickJS WebAssembly, a fresh engine instance per test. Each hostile
 * program is bounded: it stops by itself after a fixed count (the rope one at 2.5 GiB asked,
 * which the WebAssembly build refuses past 2 GiB anyway), within its deadline.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { ENGINE_ROOM_BYTES, MemoryGate } from "../../../../sandbox/engine/memory-gate";
import { WarmEngine } from "../../../../sandbox/engine/warm-engine";
import type { EngineStop } from "../../../../sandbox/engine/protocol";

const MIB = 1_048_576;
const LIMIT = 32 * MIB;

/** A fresh engine instance whose memory grows only as its runs' limits allow (as the runner's). */
async function gatedEngine() {
  const gate = new MemoryGate();
  const quickjs = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmMemory: gate.memory }),
  );
  return { engine: new WarmEngine(quickjs, gate), memory: gate.memory };
}

/** Runs `code` in `engine` with a 32 MiB limit (or `memoryBytes`); its answer, and whether it freed. */
async function run(engine: WarmEngine, code: string, memoryBytes = LIMIT) {
  const engineRun = new EngineRun(
    engine,
    engineRunRequest(code, { timeoutMs: 30_000, memoryBytes }),
    [],
    async (_ns, _name, args) => args,
  );
  const result = await engineRun.result;
  return { result, freed: engineRun.dispose() };
}

function expectMemoryStop(result: string | EngineStop): void {
  // Before: a JSON answer ("kept …"): the run was never looked at.
  expect(typeof result, JSON.stringify(result).slice(0, 200)).toBe("object");
  const stop = result as EngineStop;
  expect(stop.stop).toBe("memory");
  expect(stop.message).toContain(`Memory limit of ${LIMIT} bytes exceeded`);
}

describe("shared worker engine: memory held by uncharged steps counts", () => {
  it.each([
    ["objects", "kept.push({ n })", 3_000_000],
    ["closures", "kept.push(() => n)", 3_000_000],
  ])(
    "stops a program that keeps %s past the limit",
    async (_label, keep, count) => {
      // A bare instance: only the step check's look stops these (no gate).
      const quickjs = await newQuickJSWASMModuleFromVariant(variant);
      const engineRun = new EngineRun(
        quickjs,
        engineRunRequest(
          `const kept = []; for (let n = 0; n < ${count}; n++) { try { ${keep}; } catch {} } return "kept " + kept.length`,
          { timeoutMs: 30_000, memoryBytes: LIMIT },
        ),
        [],
        async (_ns, _name, args) => args,
      );
      expectMemoryStop(await engineRun.result);
      const heap = (quickjs as unknown as { module: { HEAPU8: Uint8Array } }).module.HEAPU8;
      // Before: 143–172 MiB. Now the limit, the steps between two looks, what the engine's walk
      // does not count of a closure, and the engine.
      expect(heap.byteLength).toBeLessThan(LIMIT + 64 * MIB);
      expect(engineRun.dispose()).toBe(true);
    },
    60_000,
  );

  it("keeps the engine within its gate when a program keeps flat copies of a long string", async () => {
    const { engine, memory } = await gatedEngine();
    const { result, freed } = await run(
      engine,
      `const big = "x".repeat(16 * 1048576); const kept = [];
       for (let n = 0; n < 160; n++) { try { const s = big + n; kept.push(s.charCodeAt(5) + s); } catch {} }
       return "kept " + kept.length`,
    );
    expect(freed).toBe(true);
    // Before: "kept 126" and the engine's memory at 2 GiB (2,048 MiB). Now the growth past the
    // gate is refused: the program's copies fail ("out of memory", which it catches), and the
    // run ends by the look at its next step check or, as here in a loop of a few hundred steps,
    // by its own end, having kept what the gate let the engine hold.
    if (typeof result === "object") expectMemoryStop(result);
    else expect(JSON.parse(result).result).toMatch(/^"kept [0-9]"$/);
    expect(memory.buffer.byteLength).toBeLessThanOrEqual(ENGINE_ROOM_BYTES + 2 * LIMIT);
    // The engine serves the next run as before.
    const next = await run(engine, `return [1, 2, 3].map((x) => x * 2).join(",")`);
    expect(JSON.parse(next.result as string)).toMatchObject({ result: '"2,4,6"' });
  }, 60_000);

  it("stops a program that keeps flat copies across step checks", async () => {
    const { engine, memory } = await gatedEngine();
    const { result, freed } = await run(
      engine,
      `const big = "x".repeat(4 * 1048576); const kept = [];
       for (let n = 0; n < 640; n++) { try { const s = big + n; kept.push(s.charCodeAt(5) + s); } catch {} for (let i = 0; i < 200; i++); }
       return "kept " + kept.length`,
    );
    // Before: "kept 640" (2.5 GiB asked, the engine at its 2 GiB).
    expectMemoryStop(result);
    expect(memory.buffer.byteLength).toBeLessThanOrEqual(ENGINE_ROOM_BYTES + 2 * LIMIT);
    expect(freed).toBe(true);
  }, 60_000);

  it("stops a program that keeps Map entries (which the walk does not count) at the gate", async () => {
    const { engine, memory } = await gatedEngine();
    const { result, freed } = await run(
      engine,
      `const m = new Map(); for (let n = 0; n < 4000000; n++) { try { m.set(n, n); } catch {} } return "kept " + m.size`,
    );
    // Before: "kept 4000000" (207 MiB of engine memory on an ungated engine).
    expectMemoryStop(result);
    expect(memory.buffer.byteLength).toBeLessThanOrEqual(ENGINE_ROOM_BYTES + 2 * LIMIT);
    expect(freed).toBe(true);
  }, 60_000);

  it("lets honest runs hold up to their limits, and looks inside a regular expression's match", async () => {
    const { engine } = await gatedEngine();
    // 96 MiB kept under a 128 MiB limit: the gate lets the engine grow for it.
    const large = await run(
      engine,
      `const kept = []; for (let n = 0; n < 12; n++) kept.push(new Uint8Array(8 * 1048576).fill(n)); return kept.length`,
      128 * MIB,
    );
    expect(JSON.parse(large.result as string)).toMatchObject({ result: "12" });
    // The engine is now past 32 MiB, so every look of a 32 MiB run walks, here in a match.
    const match = await run(
      engine,
      `return /(a+)+b/.test("a".repeat(20)) + " " + "y".repeat(10).length`,
    );
    expect(JSON.parse(match.result as string)).toMatchObject({ result: '"false 10"' });
    expect(match.freed).toBe(true);
  }, 60_000);
});
