/**
 * The operation budget, shared by the harness and the instrumented user module.
 *
 * Why count operations: inside Workers, time does not advance during synchronous execution, and
 * a synchronous `while(true){}` in a loaded isolate hangs local workerd outright (no timer can
 * fire). So the host instruments every loop body, function entry and catch/finally block of the
 * user's code with a call to `t()`, and `t()` throws once the budget is spent. Once exhausted it
 * keeps throwing, so code that catches the error cannot loop or call its way past it.
 *
 * This module is shipped as its own module (`runtime.js`) so both importers share one instance.
 */
import type { SandboxErrorName } from "../src/errors";

/** Thrown when a limit of the run is exceeded. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LimitError" satisfies SandboxErrorName;
  }
}

let budget = Number.POSITIVE_INFINITY;
let used = 0;
let exhausted = false;

/**
 * Sets the budget for the run about to start.
 * @param maxOperations - operations allowed before `t()` starts throwing
 */
export function configure(maxOperations: number): void {
  budget = maxOperations;
  used = 0;
  exhausted = false;
}

/** Counts one operation; throws {@link LimitError} when the budget is spent. */
export function t(): void {
  if (++used > budget) {
    exhausted = true;
    throw new LimitError(
      `Operation budget of ${budget} exceeded: the code ran too many loop iterations or function calls (a runaway loop?). Make the loop bounded or ask the host for a larger maxOperations.`,
    );
  }
}

/** Operations used so far and whether the budget ran out. */
export function usage(): { operations: number; exhausted: boolean } {
  return { operations: Math.min(used, budget), exhausted };
}
