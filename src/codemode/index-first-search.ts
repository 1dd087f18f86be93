/**
 * A `search` run ships the spec's index first, and runs again with the whole spec only when the
 * program reads past it.
 *
 * Why: every run copies what it is shipped into a fresh isolate, and most search programs read
 * only paths, methods and operations' short fields. Measured as workerd CPU per call in the bench
 * Worker (2026-12-06, bench/README.md "Search: the index shipped first"): with Cloudflare's whole
 * 4.2 MB pack a search of `async () => 1` cost 3.5 ms more than a trivial `execute`, with
 * GitHub's 6.4 MB 6–7 ms more; with the index part alone (0.39 and 0.74 MB) 0.5–1 ms more. A
 * program that reads an operation's other fields or a component pays for both runs instead.
 *
 * Which to ship first is guessed from the program's text: one that names a field kept out of the
 * index (`requestBody`, `parameters`, …), `components` or `stringify` gets the whole spec at once
 * (the two runs of such a program cost 45–47 ms of CPU against 27 for one run on the whole
 * spec, measured as above). A wrong guess costs speed, never the answer: a program that reads
 * past the index by other means (`Object.values(operation)`, a computed key) runs again.
 *
 * The second run is the program's answer, logs and all: the first one's result and logs are
 * dropped, and the sandbox failed it at the first read past the index (sandbox/ext-openapi.ts),
 * whatever the program did with the error. A program that throws the same error by itself only
 * gets the run with the whole spec it would have had anyway, once. Both runs together stay
 * within the run's timeout, the tool's or else the executor's own (`Executor.limits`): the
 * second gets what the first left of it. Given the whole timeout again, a program that waited
 * out its time on the index and then read past it held its isolate (locally, a runner) twice
 * as long as any other run.
 */
import { WHOLE_SPEC_NEEDED } from "../../sandbox/protocol";
import type { ExecuteRequest, ExecutionOutcome, Executor } from "../executor/types";

/** The spec as shipped: whole, and its index part when it has one worth shipping first. */
export interface ShippedSpec {
  whole: string | Uint8Array;
  index?: Uint8Array | undefined;
  /** Words in a program's text that say it likely reads past the index (see {@link readsPastIndex}). */
  pastIndex?: RegExp | undefined;
}

/**
 * A pattern matching a program text that names what the index does not hold: one of `fields`
 * (the operation fields kept out of it), `components`, or `stringify` (a program serializing
 * operations reads every field).
 * @param fields - the operation fields kept out of the index (spec-pack.ts, `packedOperationFields`)
 */
export function pastIndexWords(fields: readonly string[]): RegExp {
  const words = [...fields, "components", "stringify"].map((w) =>
    w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
  );
  return new RegExp(`(?<![\\w$-])(?:${words.join("|")})(?![\\w$-])`);
}

/**
 * Whether a program's text names something the index does not hold (a guess; see the module).
 * @param code - the program
 * @param pastIndex - from {@link pastIndexWords}
 */
export function readsPastIndex(code: string, pastIndex: RegExp | undefined): boolean {
  return pastIndex !== undefined && pastIndex.test(code);
}

/**
 * Runs a search program: on the index first where that pays, again on the whole spec if needed.
 * @param executor - runs the program; one that keeps extension data between runs
 *   (`keepsExtensionData`) gets the whole spec at once, since shipping less saves it nothing
 * @param request - the run, without its `openapi` extension
 * @param spec - what to ship
 * @param now - the clock (milliseconds), for the second run's share of the timeout
 */
export async function indexFirstSearch(
  executor: Executor,
  request: ExecuteRequest,
  spec: ShippedSpec,
  now: () => number = Date.now,
): Promise<ExecutionOutcome> {
  const run = (data: string | Uint8Array, limits = request.limits) =>
    executor.execute({
      ...request,
      limits,
      extensions: [{ name: "openapi", data }, ...(request.extensions ?? [])],
    });
  if (
    spec.index === undefined ||
    executor.keepsExtensionData ||
    readsPastIndex(request.code, spec.pastIndex)
  )
    return run(spec.whole);
  const started = now();
  const first = await run(spec.index);
  if (!readPastIndex(first)) return first;
  // An executor that does not say its limits (none of this package's) keeps its own timeout.
  const timeoutMs = request.limits?.timeoutMs ?? executor.limits?.timeoutMs;
  if (timeoutMs === undefined) return run(spec.whole);
  const left = timeoutMs - (now() - started);
  // Nothing left: the run has had its time, as a timed-out run (the first run's outcome says
  // only that the index was not enough).
  if (left < 1)
    return { ...first, status: "timeout", logs: [], droppedLogs: 0, error: timedOut(timeoutMs) };
  return run(spec.whole, { ...request.limits, timeoutMs: left });
}

/** Whether the sandbox ended the run because the program read past the index. */
function readPastIndex(outcome: ExecutionOutcome): boolean {
  return outcome.error?.name === "LimitError" && outcome.error.message === WHOLE_SPEC_NEEDED;
}

function timedOut(timeoutMs: number): ExecutionOutcome["error"] {
  return { name: "TimeoutError", message: `The code did not finish within ${timeoutMs} ms.` };
}
