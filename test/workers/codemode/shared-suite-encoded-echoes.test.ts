/**
 * The code-mode suite encoded-echoes.test.ts, run unchanged against the SharedWorkerExecutor: the
 * module that exports WorkerLoaderExecutor is replaced by one exporting the shared executor under
 * that name, so every server the suite builds runs its programs on the shared worker.
 */
import { vi } from "vitest";

vi.mock("../../../src/executor/worker-loader-executor", async () => {
  const shared = await import("../../../src/executor/shared-worker-executor");
  return { WorkerLoaderExecutor: shared.SharedWorkerExecutor };
});
await import("./encoded-echoes.test");
