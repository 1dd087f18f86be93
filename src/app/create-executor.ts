/**
 * Builds the executor the `EXECUTOR` setting names (see executor-setting.ts). Worker-only: the
 * executors need the Worker runtime, so the configuration check stays in its own module.
 */
import { SharedWorkerExecutor } from "../executor/shared-worker/shared-worker-executor";
import type { Executor, ExecutorLimits } from "../executor/types";
import { WorkerLoaderExecutor } from "../executor/loader/worker-loader-executor";
import type { ExecutorKind } from "./config/executor-setting";

/**
 * Builds the configured executor.
 * @param kind - the checked `EXECUTOR` setting (parseExecutorSetting)
 * @param loader - the Worker Loader binding
 * @param limits - the `LIMIT_*` settings
 */
export function createExecutor(
  kind: ExecutorKind,
  loader: WorkerLoader,
  limits: Partial<ExecutorLimits>,
): Executor {
  return kind === "shared-worker"
    ? new SharedWorkerExecutor({ loader, limits, name: "code-mode-mcp" })
    : new WorkerLoaderExecutor({ loader, limits });
}
