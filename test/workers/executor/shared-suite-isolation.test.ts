/**
 * The per-run executor's isolation suite, run unchanged against the SharedWorkerExecutor: the module
 * that exports WorkerLoaderExecutor is replaced by one exporting the shared executor under that
 * name, so every test of isolation.test.ts constructs and exercises the shared executor instead.
 */
import { vi } from "vitest";

vi.mock("../../../src/executor/worker-loader-executor", async () => {
  const shared = await import("../../../src/executor/shared-worker-executor");
  return { WorkerLoaderExecutor: shared.SharedWorkerExecutor };
});
await import("./isolation.test");
