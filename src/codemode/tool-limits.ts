/**
 * Executor limit defaults for model-facing tools, over the executor's own defaults. A result
 * enters the model's context, so it is capped at 32 KiB (about 8k tokens) rather than the
 * executor's 1 MiB; the description states the cap so the model returns only what it needs.
 */
import type { ExecutorLimits } from "../executor/types";

/** Defaults for the `code`, `search` and `execute` tools (each server's `limits` overrides). */
export const TOOL_LIMITS: Partial<ExecutorLimits> = Object.freeze({ maxResultBytes: 32_768 });
