// Counted work for unit tests whose claim is "this input costs the host little" (our rule: never
// time things in unit tests). Every regular-expression run goes through `RegExp.prototype.exec`
// once that method is replaced (the spec's RegExpExec calls the `exec` it finds, so `test`,
// `matchAll`, `String.prototype.match`/`replace`/`split` all land here), so a test can count the
// runs and see each subject handed to the engine: a quadratic scan shows as runs growing with the
// square of the input, a catastrophic pattern as a long subject reaching it. What happens inside
// one run (V8's backtracking) cannot be counted here; such claims live in bench/hostile-inputs.mjs.
import { vi } from "vitest";
import { maxCheckedLength, patternRisk } from "../../src/openapi/pattern-safety";

/** One regular-expression run seen by {@link countRegexRuns}. */
export interface RegexRun {
  /** The expression's source text. */
  source: string;
  /** The subject's length in UTF-16 code units. */
  length: number;
}

/** What {@link countRegexRuns} returns: the callback's result and every run it made. */
export interface CountedRuns<T> {
  /** What the callback returned. */
  result: T;
  /** Every run, in order. */
  runs: RegexRun[];
}

/**
 * Calls `work` with `RegExp.prototype.exec` replaced by a counting one, and gives the original
 * back after it (also when `work` throws).
 * @param work - the code under test; synchronous, so no other test's runs are counted
 * @param refuse - a guard against runaway probes: a run it returns true for is not started and
 *   throws instead, so a regression fails at once rather than holding the test for minutes
 * @param maxRuns - the same guard for a quadratic number of runs (and the memory to list them)
 * @returns the callback's result and the runs it made
 */
export function countRegexRuns<T>(
  work: () => T,
  refuse: (run: RegexRun) => boolean = () => false,
  maxRuns = 1_000_000,
): CountedRuns<T> {
  const exec = RegExp.prototype.exec;
  const runs: RegexRun[] = [];
  const spy = vi.spyOn(RegExp.prototype, "exec").mockImplementation(function (
    this: RegExp,
    subject: string,
  ) {
    const run = { source: this.source, length: String(subject).length };
    if (runs.push(run) > maxRuns) throw new Error(`more than ${maxRuns} regular-expression runs`);
    if (refuse(run))
      throw new Error(`refused a run of /${run.source}/ on ${run.length} characters`);
    return exec.call(this, subject);
  });
  try {
    return { result: work(), runs };
  } finally {
    spy.mockRestore();
  }
}

/**
 * Calls `count(n)` and `count(4 * n)` and says whether the work grew at most linearly (at most
 * 4 times plus `slack`, for what is paid once): a quadratic scan grows 16 times.
 * @param n - the smaller input size
 * @param count - counted work for an input of size n
 * @param slack - counted work allowed on top that does not grow with the input
 */
export function growth(n: number, count: (n: number) => number, slack = 0) {
  const small = count(n);
  const large = count(4 * n);
  return { small, large, linear: large <= 4 * small + slack };
}

/**
 * Whether a run is one that src/openapi/pattern-safety.ts would not let run on a subject this
 * long (over its STEP_BUDGET): its cost model stands in for the steps inside one run, which
 * cannot be counted from JavaScript. A linear expression passes at any length.
 * @param run - a run seen by {@link countRegexRuns}
 */
export function beyondStepBudget(run: RegexRun): boolean {
  const risk = patternRisk(run.source);
  return risk === "exponential" || run.length > maxCheckedLength(risk);
}
