/**
 * Redaction in bounded slices: the long passes over a body (decoding steps, the walk over its
 * views) are generators that yield {@link PAUSE} between units of work of bounded size, and a
 * driver decides what a pause means. Run to the end at once ({@link runToEnd}) they are the
 * synchronous redaction every caller had; driven by {@link runInSlices}, the thread is given to
 * other tasks between slices.
 *
 * Why: the local server's host runs every client's requests in one isolate thread, and a program
 * chooses what an echoing API returns. A 4 MiB body of `%2541%25%41a%2525` took ~1.3 s of one
 * synchronous pass on a loaded machine: every other client's `search` waited that long (issue
 * #40). Why slices are counted in work and not in time: workerd's clocks do not advance while
 * JavaScript runs (they move only at I/O), so "20 ms since the last yield" cannot be measured
 * inside a host isolate; positions tried can, and cost the same on every machine.
 */

/** What a sliced pass yields between units of work. */
export const PAUSE: unique symbol = Symbol("redaction pause");
/** The type of {@link PAUSE}. */
export type Pause = typeof PAUSE;

/** A pass that yields {@link PAUSE} between units of work and returns its result. */
export type Sliced<T> = Generator<Pause, T, void>;

/**
 * Positions a decoding step (or any per-character pass) tries between pauses: ~3 ms of an idle
 * core, ~15 ms at load average 14 on 2 cores (a step over 4 MiB of `%25` sequences took 700 ms
 * there), so slices stay well under the 100 ms a client may notice.
 */
export const SLICE_POSITIONS = 32_768;

/**
 * Work left before the next pause, shared by a pass and the passes and searches it runs: each
 * takes from `left` what it did, and whichever finds it spent pauses and sets it back to
 * {@link SLICE_POSITIONS}.
 */
export interface SliceBudget {
  left: number;
}

/** A fresh {@link SliceBudget}. */
export const sliceBudget = (): SliceBudget => ({ left: SLICE_POSITIONS });

/**
 * Runs a sliced pass to its end without giving the thread away (small inputs, and callers that
 * must answer synchronously).
 * @param pass - the pass
 */
export function runToEnd<T>(pass: Sliced<T>): T {
  for (;;) {
    const step = pass.next();
    if (step.done) return step.value;
  }
}

/** Gives the thread to other tasks: a macrotask, so other requests' I/O and timers run first. */
export const yieldThread = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs a sliced pass, awaiting `pause` at every {@link PAUSE} it yields.
 * @param pass - the pass
 * @param pause - what a pause does ({@link yieldThread} by default; tests count them)
 */
export async function runInSlices<T>(pass: Sliced<T>, pause = yieldThread): Promise<T> {
  for (;;) {
    const step = pass.next();
    if (step.done) return step.value;
    await pause();
  }
}
