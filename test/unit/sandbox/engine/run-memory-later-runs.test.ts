/**
 * A shared-worker run is charged only the memory it holds, whatever earlier runs in the same
 * engine did. The engine counts its refused growths (memory-gate.ts) for the whole instance, and
 * a run looked at refusals past the count it saw at its last look, starting from zero: the first
 * step check of every run after one whose growth was refused saw "refused while alone" and
 * stopped the honest run as over its limit ("Memory limit of 67108864 bytes exceeded" for a
 * loop that only counts), in every later run of that engine.
 *
 * Plain Node with the real QuickJS WebAssembly, one gated engine instance per test (as the
 * runner's). The hostile runs are the bounded ones of run-memory-steps.test.ts.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { MemoryGate } from "../../../../sandbox/engine/memory-gate";
import { WarmEngine } from "../../../../sandbox/engine/warm-engine";
import type { EngineRunRequest } from "../../../../sandbox/engine/protocol";

const MIB = 1_048_576;
const LIMIT = 32 * MIB;

/** A program that keeps flat copies of a 4 MiB string until the gate refuses the engine's growth. */
const GROWER = `const big = "x".repeat(4 * 1048576); const kept = [];
  for (let n = 0; n < 640; n++) { try { const s = big + n; kept.push(s.charCodeAt(5) + s); } catch {} for (let i = 0; i < 200; i++); }
  return "kept " + kept.length`;

/** An honest program that only counts: many step checks, nothing held. */
const COUNTER = `let s = 0; for (let i = 0; i < 2000000; i++) s += i % 7; return s`;

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

describe("shared worker engine: later runs are charged only what they hold", () => {
  it("answers honest runs after a run whose growth was refused and that was stopped for memory", async () => {
    const { engine, gate } = await gatedEngine();
    const grower = await finish(start(engine, GROWER));
    expect(grower).toMatchObject({ stop: "memory" });
    expect(gate.refusals).toBeGreaterThan(0);
    for (let n = 0; n < 3; n++) {
      // Before: { stop: "memory", message: "Memory limit of 33554432 bytes exceeded…" }.
      const result = await finish(start(engine, COUNTER));
      expect(typeof result, JSON.stringify(result).slice(0, 200)).toBe("string");
      expect(JSON.parse(result as string)).toMatchObject({ result: "5999995" });
    }
    // A run past its CPU budget is stopped for that, not for memory it does not hold.
    const spent = await finish(start(engine, "for (;;) {}", { maxInterrupts: 50 }));
    expect(spent).toMatchObject({ stop: "interrupted" });
  }, 60_000);

  it("does not charge a run the refusals of another run that ended before its look", async () => {
    const { engine, gate } = await gatedEngine();
    // The honest run starts first and waits on a host call while the grower runs alone after it.
    const honest = start(engine, `await codemode.echo(1); ${COUNTER}`);
    const grower = await finish(start(engine, GROWER));
    expect(gate.refusals).toBeGreaterThan(0);
    expect(typeof grower === "string" || grower.stop === "memory").toBe(true);
    // Before: the honest run, now alone, saw the grower's refusals at its next step check.
    const result = await finish(honest);
    expect(typeof result, JSON.stringify(result).slice(0, 200)).toBe("string");
    expect(JSON.parse(result as string)).toMatchObject({ result: "5999995" });
  }, 60_000);
});
