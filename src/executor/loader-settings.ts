/**
 * The constructor defaults both Worker Loader executors share: the binding, the default limits
 * (checked once, at construction) and the compatibility date of what they load.
 */
import { resolveLimits } from "./limits";
import type { ExecutorLimits } from "./types";

/** Compatibility date of the sandbox workers when the options give none. */
export const DEFAULT_COMPATIBILITY_DATE = "2026-08-01";

/** What an executor keeps from its options for every run. */
export interface LoaderSettings {
  /** The Worker Loader binding. */
  loader: WorkerLoader;
  /** Default limits of every run, resolved over the built-in defaults. */
  limits: Readonly<ExecutorLimits>;
  /** Compatibility date of the loaded workers. */
  compatibilityDate: string;
}

/**
 * Resolves an executor's options to its settings.
 *
 * @param options - the loader binding, optional default limits and compatibility date
 * @returns the settings
 * @throws CodeModeError `invalid_limits` when a limit is out of range
 */
export function loaderSettings(options: {
  loader: WorkerLoader;
  limits?: Partial<ExecutorLimits>;
  compatibilityDate?: string;
}): LoaderSettings {
  return {
    loader: options.loader,
    // Frozen: read by callers too (`Executor.limits`), never changed after construction.
    limits: Object.freeze(resolveLimits(options.limits)),
    compatibilityDate: options.compatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
  };
}
