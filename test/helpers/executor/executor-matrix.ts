/**
 * The executor matrix: one suite, both executors, one import (h3's `describeMatrix`). A suite
 * whose behaviour must hold on the isolate-per-run executor and on the shared worker wraps its
 * body in `describeExecutors((Executor) => { … })`; the body runs once per executor inside one
 * test file, so its modules (and any big spec it reads) are imported once, not once per executor.
 */
import { describe } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import type { Executor } from "../../../src/executor/types";
import {
  WorkerLoaderExecutor,
  type WorkerLoaderExecutorOptions,
} from "../../../src/executor/loader/worker-loader-executor";

/** What a matrix suite constructs: either executor, from the options both accept. */
export type ExecutorClass = new (options: WorkerLoaderExecutorOptions) => Executor;

/** The executors every matrix suite runs under, by the name the tests print. */
export const EXECUTOR_MATRIX = [
  { kind: "isolate-per-run", Executor: WorkerLoaderExecutor },
  { kind: "shared-worker", Executor: SharedWorkerExecutor },
] as const satisfies readonly { kind: string; Executor: ExecutorClass }[];

/** The name of one executor of the matrix (`"isolate-per-run"` or `"shared-worker"`). */
export type ExecutorKind = (typeof EXECUTOR_MATRIX)[number]["kind"];

/**
 * Runs `suite` once per executor, each inside its own `describe("executor: <kind>")`. The
 * suite must create everything that depends on the executor (executors, servers, handlers)
 * inside the callback, never at module level, so no state leaks from one executor's run into
 * the other's.
 */
export function describeExecutors(
  suite: (Executor: ExecutorClass, kind: ExecutorKind) => void,
): void {
  for (const { kind, Executor } of EXECUTOR_MATRIX) {
    describe(`executor: ${kind}`, () => suite(Executor, kind));
  }
}
