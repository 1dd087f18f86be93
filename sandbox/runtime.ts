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

/**
 * Operations a caught stack overflow costs. Each overflow makes the engine walk and print the
 * whole stack (about 1,000 frames in the shared worker's engine, ~0.7 ms), while the program
 * pays only the one or two operations it takes to overflow again from its catch block: without
 * this charge, recursing from a catch held the shared worker for hours on the default budget.
 * About what that walk costs in cheap operations.
 */
export const OVERFLOW_COST = 10_000;
const { getOwnPropertyDescriptor } = Object;

/**
 * Counts one operation; throws {@link LimitError} when the budget is spent.
 * @param thrown - in a catch block, the caught value: a stack overflow costs {@link OVERFLOW_COST}
 */
export function t(thrown?: unknown): void {
  if (thrown !== undefined && isStackOverflow(thrown)) used += OVERFLOW_COST - 1;
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

/** Whether a caught value is the engine's (or V8's) stack overflow error; never throws. */
function isStackOverflow(thrown: unknown): boolean {
  if (typeof thrown !== "object" || thrown === null) return false;
  try {
    // The own data property only: a getter is never run (a proxy's trap is instrumented user
    // code; whatever it throws is ignored here).
    const message = getOwnPropertyDescriptor(thrown, "message")?.value as unknown;
    return message === "stack overflow" || message === "Maximum call stack size exceeded";
  } catch {
    return false;
  }
}
