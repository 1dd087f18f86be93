/**
 * What the host forgets about one runner slot when the supervisor finds its runner unused
 * (issue #40, "A runner that a host stops using is noticed … and fixed": the supervisor's side is
 * cli/local-server/runners/unused-runner.mjs). The runner loader (runner-loader.ts) keeps what
 * it learnt of each slot across requests, and two of those marks never expire on their own:
 *
 * - `cold` (no runner known to serve there) ends only when a run begins there, and a run goes to
 *   a cold slot only when no serving runner is idle: a kept runner whose slot was marked cold
 *   while it was being replaced (a run refused in that gap) got no run for as long as another
 *   runner was idle at each run, however long the server stayed lightly loaded.
 * - a run of the slot's whose call to the runner never settles (its request's context was
 *   dropped when the host gave it up) stays among the slot's runs for good: the slot ranks as
 *   busy (runner-placement.ts), after every idle runner.
 *
 * The supervisor asks only when the runner itself has counted no run begun and none under way for
 * a while (`quietMs`) while the host began runs on other runners: so the runner serves, and any
 * run the host still places on it that has been quiet that long is not under way there.
 *
 * Pure: the loader passes its slot and its clock's time.
 */
import { RUNNER_HELD_MAX_MS, type PlacedSlot } from "./placement/runner-placement";

/**
 * The local server's internal route where its supervisor tells the host that a runner it keeps
 * serves but got no run for a while (cli/local-server/runners/unused-runner.mjs): `POST` with
 * `slot` (1-based) and `quietMs`. Answered only with the cluster secret
 * (src/app/create-worker.ts), by {@link forgetAnswer}.
 */
export const FORGET_RUNNER_PATH = "/runners/forget";
/**
 * The header of a {@link FORGET_RUNNER_PATH} request that carries the cluster secret once more:
 * the front passes every client request on with the cluster secret's own header, so that header
 * does not tell the supervisor from a client there, and a client that had the host forget its
 * runs could slip past the per-caller cap of runners (runner-placement.ts). The front passes a
 * client's own headers on, but a client does not know the secret.
 */
export const SUPERVISOR_SECRET_HEADER = "x-local-supervisor-secret";
/** On a {@link FORGET_RUNNER_PATH} answer: `1` when the slot was marked cold, else `0`. */
export const FORGOT_COLD_HEADER = "x-forgot-cold";
/** On a {@link FORGET_RUNNER_PATH} answer: how many stale runs of the slot were dropped. */
export const FORGOT_RUNS_HEADER = "x-forgot-runs";

/**
 * The shortest `quietMs` a {@link FORGET_RUNNER_PATH} request may name: the time a quiet run
 * still counts as holding its runner (runner-placement.ts). The supervisor asks with 30 s or more
 * (cli/local-server/runners/unused-runner.mjs `UNUSED_MS`); a shorter one (a mistake, or a request
 * that got the secret) would drop the accounting of runs under way, and with it the per-caller
 * cap of runners, so it is refused rather than trusted (attack22).
 */
export const MIN_FORGET_QUIET_MS = RUNNER_HELD_MAX_MS;

/** What {@link forgetStale} found and forgot. */
export interface Forgotten {
  /** The slot was marked cold (no runner known to serve). */
  cold: boolean;
  /** Runs on it quiet for `quietMs` or longer, dropped. */
  runs: number;
}

/**
 * Forgets the slot's marks that outlive what they stood for: its coldness, and its runs quiet for
 * `quietMs` or longer (see the module comment for why both are stale when the supervisor asks).
 * Rests and lateness are left alone: they end within seconds on their own.
 * @param slot - one slot of the runner loader
 * @param now - the loader's clock now
 * @param quietMs - how long the runner has counted no run begun and none under way
 */
export function forgetStale(slot: PlacedSlot, now: number, quietMs: number): Forgotten {
  const cold = slot.cold === true;
  // Not for a spare: a spare is cold between its temporary runners by design, and the
  // supervisor asks only about the runners it keeps.
  if (cold && !slot.spare) {
    slot.cold = false;
    slot.askedAt = 0;
  }
  let runs = 0;
  for (const run of slot.runs)
    if (now - run.lastProgress >= quietMs) {
      // A call that settles after all deletes it again: nothing else refers to it.
      slot.runs.delete(run);
      runs++;
    }
  return { cold: cold && !slot.spare, runs };
}

/**
 * The answer to a {@link FORGET_RUNNER_PATH} request: 204 with what was forgotten in
 * {@link FORGOT_COLD_HEADER} and {@link FORGOT_RUNS_HEADER}; 404 when `forget` knows no such
 * slot; 400 for a query that does not name the slot and a quiet time of at least
 * {@link MIN_FORGET_QUIET_MS}.
 * @param url - the request's URL
 * @param forget - the runner loader's `forgetStale`: undefined for no such slot
 */
export function forgetAnswer(
  url: string,
  forget: (slot: number, quietMs: number) => Forgotten | undefined,
): Response {
  const query = new URL(url).searchParams;
  const slot = Number(query.get("slot"));
  const quietMs = Number(query.get("quietMs"));
  if (
    !Number.isInteger(slot) ||
    slot < 1 ||
    !Number.isFinite(quietMs) ||
    quietMs < MIN_FORGET_QUIET_MS
  )
    return new Response(
      `Expected ?slot=<1-based index>&quietMs=<ms, ${MIN_FORGET_QUIET_MS} or more>.`,
      { status: 400 },
    );
  const forgotten = forget(slot, quietMs);
  if (!forgotten) return new Response("No such runner slot here.", { status: 404 });
  return new Response(null, {
    status: 204,
    headers: {
      [FORGOT_COLD_HEADER]: forgotten.cold ? "1" : "0",
      [FORGOT_RUNS_HEADER]: String(forgotten.runs),
    },
  });
}
