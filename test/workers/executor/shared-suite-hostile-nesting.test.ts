/**
 * The per-run executor's hostile-nesting suite, run unchanged against the SharedWorkerExecutor
 * (see shared-suite-hostile-programs.test.ts for how).
 */
import { vi } from "vitest";

vi.mock("../../../src/executor/worker-loader-executor", async () => {
  const shared = await import("../../../src/executor/shared-worker-executor");
  return { WorkerLoaderExecutor: shared.SharedWorkerExecutor };
});
await import("./hostile-nesting.test");
