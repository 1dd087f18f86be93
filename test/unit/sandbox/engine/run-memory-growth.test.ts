/**
 * A shared-worker run whose program grows the engine's WebAssembly memory (any allocation of
 * more than the memory's free room: a 16 MB ArrayBuffer, a 20 MB string) must leave its engine
 * runtime freeable. Before engine-jobs.ts, quickjs-emscripten's `executePendingJobs` read a
 * detached view after the growth and created an engine context nobody owned, so freeing the
 * runtime hit QuickJS's `list_empty(&rt->gc_obj_list)` assertion: emscripten aborted and the
 * runner had to throw the whole engine instance away (and every such run did it again).
 *
 * Plain Node with the real QuickJS WebAssembly and the real guest modules: the runner's module
 * texts are the ones the build ships (test/helpers/executor/engine-module-texts.ts). Each test gets a fresh engine
 * instance, whose memory starts small, so the program's allocation really grows it.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";

/** The engine module's memory and C interface (private in quickjs-emscripten). */
interface EngineInternals {
  module: { HEAPU8: Uint8Array; _malloc(bytes: number): number; _free(pointer: number): void };
  ffi: Record<string, (...args: number[]) => number>;
}

/**
 * Makes the engine's `name` call grow the WebAssembly memory first, as any allocation past the
 * free room does (a real growth: a block larger than the whole memory, allocated and freed).
 */
function growDuring(quickjs: object, name: string): void {
  const { module, ffi } = quickjs as EngineInternals;
  const original = ffi[name]!;
  ffi[name] = (...args) => {
    module._free(module._malloc(module.HEAPU8.byteLength));
    return original(...args);
  };
}

/** Runs `code` on a fresh engine instance; the host answers every call with its encoded arguments. */
async function runOnFreshEngine(code: string, prepare?: (quickjs: object) => void) {
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  prepare?.(quickjs);
  const run = new EngineRun(
    quickjs,
    engineRunRequest(code, { timeoutMs: 2_000 }),
    [],
    async (_ns, _name, args) => args,
  );
  const result = await run.result;
  return { result, freed: run.dispose() };
}

describe("shared worker engine: a program that grows the engine's memory", () => {
  it.each([
    [
      "a 16 MB ArrayBuffer",
      "const a = new ArrayBuffer(16 * 1024 * 1024); return a.byteLength",
      16777216,
    ],
    ["a 20 MB string", "return 'm'.repeat(20 * 1024 * 1024).length", 20971520],
    [
      "a big array after a host call",
      "await codemode.echo(1); return new Array(4 * 1024 * 1024).fill(0).length",
      4194304,
    ],
  ])("(%s) answers normally and leaves its runtime freeable", async (_label, code, expected) => {
    const { result, freed } = await runOnFreshEngine(code);
    expect(typeof result).toBe("string");
    expect(JSON.parse(result as string)).toMatchObject({
      result: String(expected),
    });
    expect(freed).toBe(true);
  });

  it("still frees a run whose job throws after the growth", async () => {
    const { result, freed } = await runOnFreshEngine(
      "await 0; const a = new ArrayBuffer(16 * 1024 * 1024); throw new TypeError('after ' + a.byteLength)",
    );
    expect(JSON.parse(result as string)).toMatchObject({
      error: { name: "TypeError", message: "after 16777216" },
    });
    expect(freed).toBe(true);
  });

  it("answers a host call whose promise is created while the memory grows", async () => {
    const { result, freed } = await runOnFreshEngine("return await codemode.echo(7)", (quickjs) =>
      growDuring(quickjs, "QTS_NewPromiseCapability"),
    );
    expect(typeof result).toBe("string");
    expect(JSON.parse(result as string)).toMatchObject({ result: "[7]" });
    expect(freed).toBe(true);
  });
});
