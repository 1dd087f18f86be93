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
/** Host calls refused in the sandbox and charged (see {@link chargeRefusal}), for the message. */
let refusals = 0;
/** Operations charged for built-ins' native work (see {@link chargeNative}), for the message. */
let native = 0;
/** Set when the harness ended the run (its time is over): what every later `t()` throws. */
let stopped: string | undefined;

/**
 * Sets the budget for the run about to start.
 * @param maxOperations - operations allowed before `t()` starts throwing
 */
export function configure(maxOperations: number): void {
  budget = maxOperations;
  used = 0;
  exhausted = false;
  refusals = 0;
  native = 0;
  stopped = undefined;
}

/**
 * Ends the run from the harness: every later `t()` throws {@link LimitError} with `message`, so
 * whatever of the program still runs (a timer, a callback, a loop that catches) stops at its
 * next loop iteration or function entry. `t` stays one comparison: the budget drops to what is
 * already used.
 * @param message - why the run ended
 */
export function stop(message: string): void {
  stopped = message;
  budget = Math.min(budget, used);
}

/**
 * Operations a caught stack overflow costs. Each overflow makes the shared worker's engine walk
 * and print the whole stack (about 1,000 frames: 0.7 ms for a plain recursion, ~4 ms measured
 * when the program recurses again from its catch blocks), while the program pays only the one
 * or two operations it takes to overflow again: without this charge, recursing from a catch
 * held the shared worker for hours on the default budget. 50,000 cheap operations take about
 * as long; the default budget still allows 400 caught overflows per run.
 */
export const OVERFLOW_COST = 50_000;
/**
 * Operations a host call costs when the harness refuses it itself (called while the module
 * loads, after the run ended, or with arguments over the size limit). Such a refusal is answered
 * without I/O, so a loop that catches it never lets a timer fire: only the budget can end it,
 * and the loop's own ticks (two an iteration) are nothing against the refusal's cost (building
 * the error, encoding the arguments). 10,000 cheap operations take about as long as a few
 * refusals; the default budget still allows 2,000 refusals per run, an honest program meets one
 * or two.
 */
export const REFUSED_CALL_COST = 10_000;

const { getOwnPropertyDescriptor } = Object;

/** Counts one operation; throws {@link LimitError} when the budget is spent. */
export function t(): void {
  if (++used > budget) {
    if (stopped !== undefined) throw new LimitError(stopped);
    exhausted = true;
    throw new LimitError(exhaustedMessage());
  }
}

/** Why the budget ran out: by what spent most of it. */
function exhaustedMessage(): string {
  if (refusals > 0)
    return `Operation budget of ${budget} exceeded, ${refusals} refused host calls included (each costs ${REFUSED_CALL_COST} operations or more): the code kept calling after its calls were refused. Stop calling once a call is refused for a limit, or ask the host for a larger limit.`;
  if (native * 2 > budget)
    return `Operation budget of ${budget} exceeded, ${native} of it by built-ins working on large data (string repeats and searches, JSON, sorts, typed-array allocations, copies and fills are charged by their size): make the work bounded, work on less data, or ask the host for a larger maxOperations.`;
  return `Operation budget of ${budget} exceeded: the code ran too many loop iterations or function calls (a runaway loop?). Make the loop bounded or ask the host for a larger maxOperations.`;
}

/**
 * Charges built-ins' native work (sandbox/native-charges.ts), on top of the ticks: the next
 * `t()` throws once such charges spent the budget, and its message then names them.
 * @param operations - what the work is worth
 */
export function chargeNative(operations: number): void {
  // `used` must stay a number that can pass the budget: a NaN here would disable `t()`.
  if (!(operations > 0)) return;
  used += operations;
  native += operations;
}

/**
 * Charges a host call the harness refused itself, on top of the ticks: the next `t()` throws
 * once such charges spent the budget, and its message then names them.
 * @param operations - what the refusal is worth: {@link REFUSED_CALL_COST}, more when it
 *   encoded big arguments first
 */
export function chargeRefusal(operations: number): void {
  used += operations;
  refusals++;
}

/** Operations used so far and whether the budget ran out. */
export function usage(): { operations: number; exhausted: boolean } {
  return { operations: Math.min(used, budget), exhausted };
}

/**
 * Charges what catching `thrown` cost beyond the catch block's own tick: a stack overflow costs
 * {@link OVERFLOW_COST} operations. Instrumented catch blocks start with `t(c(caught))`, so
 * the tick that follows throws once the charge spent the budget; `t` itself stays one
 * comparison, as the engine's step budget counts every branch.
 * @param thrown - the caught value
 */
export function c(thrown: unknown): undefined {
  if (isStackOverflow(thrown)) used += OVERFLOW_COST - 1;
  return undefined;
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
