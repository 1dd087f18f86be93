/**
 * Retiring a sandbox runner after a number of runs, and starting a fresh one on its port. Each
 * run leaves a few KB of native memory in a runner's workerd that its V8 never reclaims (the
 * runner's own heap is almost empty, so no full collection runs there): a runner grew ~7 KB a
 * run, +27 MiB each over an 18,000-call soak (2026-12-05). A fresh process starts at its first
 * size again, as process pools bound what their workers cannot give back (php-fpm's
 * `pm.max_requests`, gunicorn's `max_requests`).
 *
 * The runner's side is src/executor/runners/runner-life.ts: `/health` carries its counts of runs
 * begun and under way; after `POST /retire` it begins no run (the host sends each elsewhere:
 * runner-loader.ts). Here: which runner is due, the setting, and the requests that read a
 * runner's counts and ask it to retire (each carries the cluster secret: health-request.mjs, so
 * no other process can ask). The retirement itself (one at a time, with a deadline) is the
 * runner pool's (runner-pool.mjs).
 */

import { healthRequest } from "../health-request.mjs";

/**
 * Runs after which a runner is retired, when `SANDBOX_RUNNER_MAX_RUNS` is not set (the setting
 * is a row of src/app/config/launcher-settings.ts; a unit test keeps the two defaults equal).
 */
export const DEFAULT_MAX_RUNS = 2_000;
/** How often the runners' counts (from the watchdog's latest probe of each) are looked at. */
export const CHECK_EVERY_MS = 2_000;
/**
 * How long a drained runner is left running before it is ended: a run counts as ended when its
 * program's promise settles in the runner, a moment before its answer has crossed to the host.
 * Ended at once, a runner cut such answers off: in a 30,000-call soak (2026-12-05), 2 runs of
 * ~12 retirements failed "the sandbox runner running this program stopped" after they had
 * finished. A retiring runner begins nothing meanwhile, so waiting costs only its memory.
 */
export const ANSWER_GRACE_MS = 1_000;
/** Time allowed to one count request (a runner held by a program is the watchdog's affair). */
const COUNT_TIMEOUT_MS = 5_000;

/**
 * Runs after which the runner of a slot is retired. The first runner of each slot goes early, in
 * steps (slot 1 of 3 after a third of `maxRuns`, slot 2 after two thirds, slot 3 after all), and
 * every later one after `maxRuns`: the runners serve equal shares of the runs, so without the
 * steps all of them came due together, their memory rose and fell in phase (the server's sum
 * swung by ~90 MiB with 3 runners) and the pool lost a runner after another within seconds.
 * Spread, one retires every `maxRuns / runners` runs of each.
 * @param {number} maxRuns - `SANDBOX_RUNNER_MAX_RUNS` (0: never)
 * @param {number} index - the slot, 1 to `runners`
 * @param {number} runners - how many slots
 * @param {boolean} first - whether the slot's runner is its first (none retired before it)
 * @returns {number} runs begun at which it is due (Infinity: never)
 */
export function retirementDue(maxRuns, index, runners, first) {
  if (maxRuns <= 0 || runners < 2) return Infinity;
  return first ? Math.max(1, Math.round((maxRuns * index) / runners)) : maxRuns;
}

/**
 * @typedef {{ index: number, retired: number, counts: { begun: number, retiring: boolean } | null }} RetirementCandidate
 * A live runner as the supervisor last saw it: its slot, how many runners that slot has retired,
 * and its counts from the watchdog's latest probe (null: none yet).
 */

/**
 * The runner to retire next, or undefined when none is due: the one most past its due count,
 * and before all, one found retiring that the supervisor did not ask (it begins no run, so
 * waiting would cost the pool a runner). Taken in slot order, the first slots came due again
 * while the last one's turn never came under a steady load (runner 3 of 3 served 1,395 runs past
 * its due 100 at SANDBOX_RUNNER_MAX_RUNS=100). `unasked` picks the log's wording: a runner
 * retiring before its due count was asked by something else on the machine.
 * @template {RetirementCandidate} C
 * @param {C[]} candidates - the live runners, in slot order
 * @param {number} maxRuns - `SANDBOX_RUNNER_MAX_RUNS` (0: never)
 * @param {number} runners - how many slots
 * @returns {{ candidate: C, begun: number, unasked: boolean } | undefined} the chosen candidate
 *   itself (with whatever else the caller keeps in it), its runs begun, and the wording
 */
export function nextRetirement(candidates, maxRuns, runners) {
  /** @type {{ candidate: C, begun: number, unasked: boolean } | undefined} */
  let chosen;
  let chosenOver = -1;
  for (const candidate of candidates) {
    const { index, retired, counts } = candidate;
    if (!counts) continue;
    const due = retirementDue(maxRuns, index, runners, retired === 0);
    const over = counts.retiring ? Infinity : counts.begun - due;
    if (over >= 0 && over > chosenOver) {
      chosen = { candidate, begun: counts.begun, unasked: counts.begun < due };
      chosenOver = over;
    }
  }
  return chosen;
}

/**
 * A runner's counts, read from its `/health` headers; null when it did not answer in time or
 * sent none (an older runner).
 * @param {string} socket - the runner's HTTP socket (Runtime.socket)
 * @returns {Promise<{ begun: number, underWay: number, retiring: boolean } | null>}
 */
export async function runnerCounts(socket) {
  const answer = await healthRequest(socket, {
    method: "HEAD",
    path: "/health",
    timeoutMs: COUNT_TIMEOUT_MS,
  });
  return answer ? countsOf(answer.headers) : null;
}

/**
 * Asks the runner to begin no more runs.
 * @param {string} socket - the runner's HTTP socket (Runtime.socket)
 * @returns {Promise<boolean>} whether it agreed
 */
export async function askToRetire(socket) {
  const answer = await healthRequest(socket, {
    method: "POST",
    path: "/retire",
    timeoutMs: COUNT_TIMEOUT_MS,
  });
  return answer?.status === 204;
}

/**
 * The counts in a runner's `/health` headers (runner-life.ts names them; Node cannot import it),
 * or null when there are none (no answer yet, an older runner).
 * @param {import("node:http").IncomingHttpHeaders | undefined} headers
 * @returns {{ begun: number, underWay: number, retiring: boolean } | null}
 */
export function countsOf(headers) {
  if (headers?.["x-runs-begun"] === undefined) return null;
  const begun = Number(headers["x-runs-begun"]);
  const underWay = Number(headers["x-runs-under-way"]);
  const retiring = headers["x-runner-retiring"] === "1";
  return Number.isInteger(begun) && Number.isInteger(underWay)
    ? { begun, underWay, retiring }
    : null;
}
