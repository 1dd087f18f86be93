/**
 * The tools' first step: a program over the run's `maxCodeChars` is answered before anything is
 * done with it (no trace, no skill scan, no approval load, no prestart), with the same error
 * outcome the executor itself gives such a run, so the text is one wherever it is refused.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { checkCodeLength } from "../executor/code-length";
import { DEFAULT_LIMITS } from "../executor/limits";
import { emptyCounters } from "../executor/run-start";
import type { Executor, ExecutorLimits } from "../executor/types";
import { outcomeToToolResult } from "./outcome-result";

/**
 * The tool result refusing `code` when it is longer than the run may take.
 * @param code - the program as the client sent it
 * @param executor - the tool's executor: its own limits apply where the tool sets none
 * @param limits - the tool's limits (overrides of the executor's)
 * @returns an `isError` result naming the length and the limit, or undefined when it fits
 */
export function refuseLongCode(
  code: string,
  executor: Pick<Executor, "limits">,
  limits: Partial<ExecutorLimits>,
): CallToolResult | undefined {
  const max = limits.maxCodeChars ?? executor.limits?.maxCodeChars ?? DEFAULT_LIMITS.maxCodeChars;
  try {
    checkCodeLength(code, max);
    return undefined;
  } catch (error) {
    const { name, message } = error as Error;
    return outcomeToToolResult({
      ...emptyCounters(),
      status: "error",
      error: { name, message },
      durationMs: 0,
    });
  }
}
