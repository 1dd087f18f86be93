/**
 * A sandbox runner's life: how many runs it has begun and has under way, and whether it is
 * retiring. The local server retires a runner after a number of runs (its supervisor asks,
 * cli/local-server/supervise.mjs) and starts a fresh one on the same port: each run leaves a few
 * KB of native memory in a runner's workerd that its V8 never reclaims (the runner's own heap is
 * almost empty, so no full collection ever runs there: 7 KB a run, +27 MiB per runner over an
 * 18,000-call soak, 2026-12-05). A fresh process starts at its first size again, the way process
 * pools bound memory that their workers cannot give back (php-fpm's `pm.max_requests`,
 * gunicorn's `max_requests`).
 *
 * A retiring runner begins no new run: it answers `{ retiring: true }` and the host sends the run
 * elsewhere (runner-loader.ts); the runs it has under way finish, and the supervisor replaces the
 * process once none is left. One instance per runner isolate ({@link runnerLife}).
 */

/** Response headers of the runner's `/health` that carry its counts. */
export const RUNS_BEGUN_HEADER = "x-runs-begun";
/** See {@link RUNS_BEGUN_HEADER}. */
export const RUNS_UNDER_WAY_HEADER = "x-runs-under-way";
/**
 * Present (`1`) once the runner is retiring. The supervisor replaces a retiring runner whoever
 * asked (only a caller with the cluster secret can: src/runner.ts), since a runner left retiring
 * would begin no run again.
 */
export const RETIRING_HEADER = "x-runner-retiring";

/**
 * A run begun here, as {@link RunnerLife} counts it: `end()` it when it ends.
 */
export interface RunTicket {
  /** Counts the run ended (again: nothing). */
  end(): void;
}

/**
 * The counts and the retiring mark of one runner. A run counts as under way until its ticket's
 * `end()`, or until its deadline passes, whichever comes first: when the host gives a run up (its
 * timeout, a gone client) it cancels its call to the runner, and workerd could drop that call's
 * context in the runner: its timers never fire and its code never resumes, so the `finally` that
 * would end the run never runs (e2e stuck-runs: the runner's own give-up timer at the timeout plus
 * its margin never fired, and the run stayed counted until the pool's deadline ended the runner).
 * The runner now keeps each run's call going past that cancel (sandbox-runner.ts, `ctx.waitUntil`)
 * and ends it itself; the deadline stays as the bound that needs nothing of that context: it is
 * read whenever the counts are.
 */
export class RunnerLife {
  #begun = 0;
  /** The runs under way, each with its deadline (ms since the epoch). */
  #runs = new Set<{ until: number }>();
  #retiring = false;

  /** @param now - the clock (tests pass their own) */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Counts a run begun, unless the runner is retiring.
   * @param forMs - how long it may count as under way at most (its timeout and the runner's
   *   margin: sandbox-runner.ts `runDeadlineFor`); default: until it is ended
   * @returns its ticket, or undefined when the run may not begin here
   */
  begin(forMs: number = Infinity): RunTicket | undefined {
    if (this.#retiring) return undefined;
    this.#begun++;
    const run = { until: this.now() + forMs };
    this.#runs.add(run);
    return { end: () => void this.#runs.delete(run) };
  }

  /** Runs under way now: begun, not ended, deadline not passed (those past it are let go). */
  underWay(): number {
    const now = this.now();
    for (const run of this.#runs) if (run.until <= now) this.#runs.delete(run);
    return this.#runs.size;
  }

  /** From now on, no run begins here. */
  retire(): void {
    this.#retiring = true;
  }

  /** The counts as `/health` headers. */
  headers(): Record<string, string> {
    return {
      [RUNS_BEGUN_HEADER]: String(this.#begun),
      [RUNS_UNDER_WAY_HEADER]: String(this.underWay()),
      ...(this.#retiring ? { [RETIRING_HEADER]: "1" } : {}),
    };
  }
}

/** This runner's life (module state: one per runner isolate, which is one per process). */
export const runnerLife = new RunnerLife();
