/**
 * Where a caller's run waits when placement (runner-placement.ts) finds no runner that caller may
 * use: one caller may have runs on all runners but one, and when every runner it uses is stalled
 * its next run waits here, bounded in number and time, so a caller starting many blocking
 * programs parks a bounded amount on the host and gets a clear error past it.
 */

/**
 * Runs of one caller that may wait at once for a runner it may use (see {@link CALLER_BUSY});
 * one more fails at once. Bounds what a caller that starts many blocking programs parks here.
 */
export const CALLER_QUEUE_MAX = 16;

/**
 * How long a caller's run waits for a runner it may use before it fails: past the time the
 * supervisor takes to replace a runner that a program holds (10 s and a moment), after which the
 * caller's runs there have failed and its runners serve again; below RUNNER_HELD_MAX_MS
 * (runner-placement.ts).
 */
export const CALLER_WAIT_MS = 12_000;

/** Pause between two looks for a runner while a caller's run waits. */
export const CALLER_LOOK_MS = 50;

/** The start of the message of a run that found no runner its caller may use. */
export const CALLER_BUSY =
  "this caller's runs already use every sandbox runner one caller may use, and none of them is free";

/** Runs waiting for a runner, counted per caller; see the module comment. */
export class CallerQueue {
  private readonly waiting = new Map<string, number>();

  /**
   * @param now - the clock (tests pass their own)
   * @param pause - waits `ms` (tests pass their own; the loader passes a timer)
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly pause: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Runs of `caller` waiting now. */
  count(caller: string): number {
    return this.waiting.get(caller) ?? 0;
  }

  /**
   * Waits for `look` to find a runner for a run of `caller`, looking every
   * {@link CALLER_LOOK_MS} for at most {@link CALLER_WAIT_MS}, with at most
   * {@link CALLER_QUEUE_MAX} runs of the caller waiting at once; past either bound it throws an
   * error that starts with {@link CALLER_BUSY} and says what to do.
   */
  async wait<S>(caller: string, look: () => S | undefined): Promise<S> {
    const waiting = this.count(caller);
    if (waiting >= CALLER_QUEUE_MAX)
      throw new Error(
        `${CALLER_BUSY}, and ${CALLER_QUEUE_MAX} more of its runs already wait for one. One caller (an OAuth user, a client address, or a process on the local server's machine) may use all runners but one, so that other callers always find one; its runs there have shown no progress for a while (programs holding their runner's thread). Wait for your runs to finish, then retry: the program did not start.`,
      );
    this.waiting.set(caller, waiting + 1);
    try {
      const deadline = this.now() + CALLER_WAIT_MS;
      for (;;) {
        await this.pause(CALLER_LOOK_MS);
        const found = look();
        if (found !== undefined) return found;
        if (this.now() >= deadline)
          throw new Error(
            `${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms). One caller (an OAuth user, a client address, or a process on the local server's machine) may use all runners but one, so that other callers always find one; its runs there have shown no progress (programs holding their runner's thread). Retry once they ended: the program did not start.`,
          );
      }
    } finally {
      const left = this.count(caller) - 1;
      if (left > 0) this.waiting.set(caller, left);
      else this.waiting.delete(caller);
    }
  }
}
