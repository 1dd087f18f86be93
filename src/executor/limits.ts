/**
 * Default executor limits and their validation. Defaults suit a model-facing tool: generous
 * enough for real data wrangling, small enough that a runaway run ends in well under a second of
 * CPU and its output fits a model's context.
 */
import { CodeModeError } from "../errors";
import type { ExecutorLimits } from "./types";

/** Defaults for every limit. */
export const DEFAULT_LIMITS: Readonly<ExecutorLimits> = Object.freeze({
  timeoutMs: 30_000,
  maxOperations: 20_000_000,
  maxHostCalls: 1_000,
  maxResultBytes: 1_048_576,
  maxLogBytes: 65_536,
  maxCallBytes: 4_194_304,
  cpuMs: 30_000,
  // 64 Ki characters: about 16k tokens, far past any program a model writes (the bench's and the
  // docs' are under 2 KB), and what `/api/search` already takes; bench/README.md has the costs.
  maxCodeChars: 65_536,
});

/** Ceiling for byte and character limits: one RPC value is capped at 32 MiB by the platform. */
const MAX_BYTES = 16 * 1_048_576;

/**
 * Merges limit layers (later wins) over the defaults and validates the result.
 * @param layers - partial limits, e.g. the executor's then the run's
 * @throws CodeModeError `invalid_limits` naming the field and the accepted range
 */
export function resolveLimits(...layers: (Partial<ExecutorLimits> | undefined)[]): ExecutorLimits {
  const merged: ExecutorLimits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!(key in DEFAULT_LIMITS)) {
        throw new CodeModeError(
          "invalid_limits",
          `Unknown executor limit "${key}". Known limits: ${Object.keys(DEFAULT_LIMITS).join(", ")}.`,
        );
      }
      (merged as unknown as Record<string, unknown>)[key] = value;
    }
  }
  for (const [key, value] of Object.entries(merged)) {
    const max = /(?:Bytes|Chars)$/.test(key) ? MAX_BYTES : Number.MAX_SAFE_INTEGER;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
      throw new CodeModeError(
        "invalid_limits",
        `Executor limit "${key}" must be an integer from 1 to ${max}; got ${JSON.stringify(value)}.`,
      );
    }
  }
  return merged;
}
