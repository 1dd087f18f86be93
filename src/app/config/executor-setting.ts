/**
 * The `EXECUTOR` setting: which executor runs the product's `search`, `execute` and `code`
 * programs (docs/executor.md compares them; docs/configuration.md documents the setting).
 *
 * - `isolate-per-run` (default): a new V8 isolate per run (`WorkerLoaderExecutor`). Fastest per
 *   run and the strongest isolation, but every run is a new Dynamic Worker on Cloudflare's bill.
 * - `shared-worker`: one stable Dynamic Worker per deployment running each program in a fresh
 *   WebAssembly engine context (`SharedWorkerExecutor`): about 1/1000 of the cost per run, an
 *   interpreter's speed, and concurrent runs sharing one isolate.
 *
 * Plain data only: the launchers' Node build checks the configuration with this module, so it
 * must not import Worker-only code (create-executor.ts builds the executor).
 */

/** The values `EXECUTOR` accepts. */
export const EXECUTOR_KINDS = ["isolate-per-run", "shared-worker"] as const;

/** One of {@link EXECUTOR_KINDS}. */
export type ExecutorKind = (typeof EXECUTOR_KINDS)[number];

/** The executor when `EXECUTOR` is not set (see docs/executor.md for why). */
export const DEFAULT_EXECUTOR: ExecutorKind = "isolate-per-run";

/**
 * Reads `EXECUTOR` (case-insensitive, surrounding spaces ignored).
 * @param raw - the setting's value, if any
 * @returns the kind, or a problem naming the accepted values
 */
export function parseExecutorSetting(
  raw: string | undefined,
): { ok: true; kind: ExecutorKind } | { ok: false; message: string; fix: string } {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === "") return { ok: true, kind: DEFAULT_EXECUTOR };
  const kind = EXECUTOR_KINDS.find((k) => k === value);
  if (kind) return { ok: true, kind };
  return {
    ok: false,
    message: `EXECUTOR must be ${EXECUTOR_KINDS.join(" or ")}; got "${raw}".`,
    fix: `Set EXECUTOR=${DEFAULT_EXECUTOR} (a new isolate per run) or EXECUTOR=shared-worker (one stable Dynamic Worker; see docs/executor.md).`,
  };
}
