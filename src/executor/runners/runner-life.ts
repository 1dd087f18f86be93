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

/** The counts and the retiring mark of one runner. */
export class RunnerLife {
  #begun = 0;
  #underWay = 0;
  #retiring = false;

  /**
   * Counts a run begun, unless the runner is retiring.
   * @returns whether the run may begin here
   */
  begin(): boolean {
    if (this.#retiring) return false;
    this.#begun++;
    this.#underWay++;
    return true;
  }

  /** Counts a begun run as ended (once per `begin()` that said yes). */
  end(): void {
    this.#underWay--;
  }

  /** From now on, no run begins here. */
  retire(): void {
    this.#retiring = true;
  }

  /** The counts as `/health` headers. */
  headers(): Record<string, string> {
    return {
      [RUNS_BEGUN_HEADER]: String(this.#begun),
      [RUNS_UNDER_WAY_HEADER]: String(this.#underWay),
      ...(this.#retiring ? { [RETIRING_HEADER]: "1" } : {}),
    };
  }
}

/** This runner's life (module state: one per runner isolate, which is one per process). */
export const runnerLife = new RunnerLife();
