/**
 * A shared-worker run may not hold more than its `memoryBytes` (sandbox/engine/run.ts, the memory
 * look). QuickJS's own limit bounds each allocation alone in this WebAssembly build, never their
 * sum (sandbox/engine/ffi.ts `memoryUsage`): a program kept 64 ArrayBuffers of 4 MiB (256 MiB)
 * under a 32 MiB limit, all of it in the WebAssembly memory of the shared worker every run
 * shares. Now it is stopped with a LimitError-style stop naming the limit, and the engine's
 * memory stays near the limit.
 *
 * Plain Node with the real QuickJS WebAssembly, a fresh engine instance per program. Each hostile
 * program is guarded: it allocates in steps of 4 MiB and stops by itself after 64 (256 MiB), so
 * a run that is not stopped ends anyway, well under the machine's memory, within its deadline.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import type { EngineStop } from "../../../../sandbox/engine/protocol";

const MIB = 1_048_576;
const LIMIT = 32 * MIB;

/** Runs `code` on a fresh engine instance with a 32 MiB limit; its answer and the engine's memory. */
async function run(code: string) {
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  const engineRun = new EngineRun(
    quickjs,
    engineRunRequest(code, { timeoutMs: 10_000, memoryBytes: LIMIT }),
    [],
    async (_ns, _name, args) => args,
  );
  const result = await engineRun.result;
  const memory = (quickjs as unknown as { module: { HEAPU8: Uint8Array } }).module.HEAPU8;
  const answer = { result, memoryBytes: memory.byteLength, freed: engineRun.dispose() };
  return answer;
}

/** A program keeping `make(n)` (about 4 MiB each) 64 times at most, catching what it may. */
const keeping = (make: string) =>
  `const kept = []; for (let n = 0; n < 64; n++) { try { kept.push(${make}); } catch {} } return "kept " + kept.length`;

describe("shared worker engine: a run's memory limit counts what it holds", () => {
  it.each([
    ["ArrayBuffers", "new ArrayBuffer(4 * 1048576)"],
    ["typed arrays", "new Float64Array(524288)"],
    ["ArrayBuffer slices", "new ArrayBuffer(4 * 1048576 + 1).slice(1)"],
    ["strings", "String.fromCharCode(65 + n % 26).repeat(4 * 1048576)"],
  ])("stops a program that keeps %s past the limit", async (_label, make) => {
    const { result, memoryBytes, freed } = await run(keeping(make));
    // Before: "kept 64" (256 MiB held under a 32 MiB limit, the engine's memory ~300 MiB).
    expect(typeof result).toBe("object");
    const stop = result as EngineStop;
    expect(stop.stop).toBe("memory");
    expect(stop.message).toContain(`Memory limit of ${LIMIT} bytes exceeded`);
    // At most the limit, the work between two looks (8 MiB) and one value, plus the engine.
    expect(memoryBytes).toBeLessThan(LIMIT + 48 * MIB);
    expect(freed).toBe(true);
  });

  it("lets a program make far more than the limit when it does not keep it", async () => {
    const { result, freed } = await run(
      `let total = 0; for (let n = 0; n < 64; n++) { const b = new Uint8Array(4 * 1048576); b[n] = 1; total += b.length; } return total`,
    );
    expect(JSON.parse(result as string)).toMatchObject({ result: String(256 * MIB) });
    expect(freed).toBe(true);
  });
});
