/**
 * Messages of the shared worker's engine runner (run.ts): why a run was stopped, and a
 * thrown value as text.
 */
import type { EngineRunRequest, EngineStop } from "./protocol";

/**
 * The message of a run the engine stopped.
 * @param kind - why it stopped
 * @param request - the run's limits, named in the message
 */
export function stopMessage(kind: EngineStop["stop"], request: EngineRunRequest): string {
  const { maxOperations, cpuBound, cpuMs } = request;
  switch (kind) {
    case "interrupted":
      if (cpuBound)
        return `CPU budget of ${cpuMs} ms exceeded: the engine stopped the code after as many steps as that budget allows (a runaway loop, or heavy computation?). Do less work per run or ask the host for a larger cpuMs.`;
      // The engine's step budget is derived from maxOperations: the same limit, counted by the
      // engine (it also sees native work such as regular-expression backtracking).
      return `Operation budget of ${maxOperations} exceeded: the engine stopped the code after as many steps as that budget allows (a runaway loop, or a regular expression that backtracks catastrophically?). Make the work bounded or ask the host for a larger maxOperations.`;
    case "memory":
      return `Memory limit of ${request.memoryBytes} bytes exceeded: the run held more than that at once (strings, arrays, ArrayBuffers and typed arrays all count). Hold less at once (process data in parts, let go of what is done) or ask the host for a larger memoryBytes.`;
    case "timeout":
      return "The run passed its deadline.";
    case "failed":
      return "The engine failed.";
    case "missing":
      return "The shared worker does not hold the run's data.";
    case "ended":
      return "The run was ended: its caller no longer waits for it.";
  }
}

/**
 * A thrown value as a message.
 * @param value - what was thrown
 */
export function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
