/**
 * The shared worker's engine finds its allocator's break in real workerd
 * (sandbox/engine/heap-break.ts), so the memory gate puts room the engine already has to the run
 * that takes it (memory-gate.ts): without it, the gate falls back to growth alone, and a hog that
 * reuses room earlier runs grew is not stopped while a neighbour runs
 * (test/unit/sandbox/engine/run-memory-shared.test.ts shows both in Node).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

/** The engine's entrypoint as this test reaches it. */
interface Engine {
  stats(): Promise<{ underWay: number; warmRuns: number; heapBreak: boolean }>;
}

describe("shared worker: the engine's allocator break", () => {
  it("is found when the engine loads", async () => {
    let id: string | null = null;
    const loader = {
      get: (
        workerId: string | null,
        getCode: () => WorkerLoaderWorkerCode | Promise<WorkerLoaderWorkerCode>,
      ) => env.LOADER.get((id = workerId), getCode),
      load: (code: WorkerLoaderWorkerCode) => env.LOADER.load(code),
    };
    const executor = new SharedWorkerExecutor({ loader: loader as unknown as WorkerLoader });
    expect(await executor.execute({ code: "return 6 * 7" })).toMatchObject({ result: 42 });
    expect(id).not.toBeNull();
    const engine = env.LOADER.get(id, () => {
      throw new Error("The engine was loaded by the run above.");
    }).getEntrypoint() as unknown as Engine;
    // Before: no such count (the gate put growth alone to runs).
    expect(await engine.stats()).toMatchObject({ heapBreak: true });
  });
});
