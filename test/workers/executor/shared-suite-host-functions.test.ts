/**
 * The per-run executor's host-functions suite, run unchanged against the SharedWorkerExecutor: the module
 * that exports WorkerLoaderExecutor is replaced by one exporting the shared executor under that
 * name, so every test of host-functions.test.ts constructs and exercises the shared executor instead.
 */
import { vi } from "vitest";

vi.mock("../../../src/executor/worker-loader-executor", async () => {
  const shared = await import("../../../src/executor/shared-worker-executor");
  return { WorkerLoaderExecutor: shared.SharedWorkerExecutor };
});
await import("./host-functions.test");
