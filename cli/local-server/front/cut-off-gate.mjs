/**
 * The front's bound on work that clients leave behind in the host runtime (issue #40, "one
 * client can starve everyone", "a client that never finishes"). A request the front has sent to
 * the host is served there in full even when its client has gone meanwhile: the front ends the
 * connection to the host, but workerd notices that only when the request's turn on the host's
 * thread has come and gone (measured: 2–4 s after it began, under such a storm; < 0.5 s on an
 * idle host), and a request waiting for that thread cannot be recalled. So a client that sends
 * requests and cuts each off at once costs itself nothing and the host everything: 10,000
 * `execute` POSTs, 100 at a time, each cut off after 150 ms, queued ~30 s of work on the host's
 * one thread, `/health` waited behind it and the supervisor replaced the host (3,000 did it at
 * load 4–13; another client's `search` waited 30 s and failed).
 *
 * Each request whose client left before its answer ended, after it was sent, holds a place; the
 * places are given back steadily, {@link CUT_OFF_MAX} per {@link CUT_OFF_HOLD_MS} (about the
 * time the host takes to give such a request up when it is not flooded). While CUT_OFF_MAX
 * places are held, new requests wait here, in order of arrival, before they reach the host; one
 * whose client leaves while it waits is dropped here at no cost to the host. So cut-off requests reach the host at most CUT_OFF_MAX per
 * CUT_OFF_HOLD_MS, whatever their number, and honest requests are never held while no one cuts
 * requests off. Measured after (bench/README.md, "Cut-off storm").
 */
import { systemClock } from "../clock.mjs";

/**
 * The time in which {@link CUT_OFF_MAX} places held by cut-off requests are given back (one every
 * CUT_OFF_HOLD_MS / CUT_OFF_MAX): a place lasts about this long when the gate is full.
 */
export const CUT_OFF_HOLD_MS = 1_000;
/**
 * How many requests cut off within {@link CUT_OFF_HOLD_MS} the host is sent before new requests
 * wait: a client's honest cancels (a closed stream, a gone tab) are far fewer; a storm of them is
 * paced to this (each such `execute` costs the host a few milliseconds and a runner a run).
 */
export const CUT_OFF_MAX = 32;

/**
 * What a request that passed the gate reports once, when its exchange ends: `cutOff()` when its
 * client left before its answer ended (it holds a place: cut-off places are given back
 * CUT_OFF_MAX per CUT_OFF_HOLD_MS), else `done()`.
 * @typedef {{ cutOff: () => void, done: () => void }} Pass
 */

/**
 * @typedef {object} CutOffGate
 * @property {(gone: (drop: () => void) => () => void) => Pass | Promise<Pass | undefined>} admit
 *   a {@link Pass} at once when no bound holds; else a promise of one once the request's turn
 *   came, or of undefined when its client left first (`gone(drop)` registers `drop` for that
 *   moment and returns what unregisters it). A request let in from the queue holds a place
 *   until its pass reports.
 * @property {() => number} held - places held now
 * @property {() => number} waiting - requests waiting now
 */

/**
 * Creates the gate.
 * @param {{ clock?: import("../clock.mjs").Clock, holdMs?: number, max?: number }} [options]
 * @returns {CutOffGate}
 */
export function createCutOffGate({
  clock = systemClock,
  holdMs = CUT_OFF_HOLD_MS,
  max = CUT_OFF_MAX,
} = {}) {
  /**
   * Places held by requests cut off after they were sent: each adds one, and they are given
   * back steadily, one every holdMs / max (so CUT_OFF_MAX per CUT_OFF_HOLD_MS). Steadily, not
   * each a hold later: holds taken together ended together, and a request that came just after
   * such a moment waited for the next one (0.7–0.9 s in e2e cutoff-storm at load 11).
   */
  let debt = 0;
  let debtAt = clock.now();
  /** Waiting requests, in order of arrival; a dropped one is skipped. @type {{ let: () => void, dropped: boolean }[]} */
  const queue = [];
  let head = 0;
  /** Requests let in from the queue whose exchange has not ended: each holds a place. */
  let letInFlight = 0;
  let timer = false;
  const perPlaceMs = holdMs / max;

  const expire = () => {
    const now = clock.now();
    debt = Math.max(0, debt - (now - debtAt) / perPlaceMs);
    debtAt = now;
  };
  const used = () => Math.ceil(debt - 1e-9) + letInFlight;
  /** Lets waiting requests in while places are free, oldest first. */
  const letIn = () => {
    while (used() < max && head < queue.length) {
      const next = /** @type {{ let: () => void, dropped: boolean }} */ (queue[head++]);
      if (!next.dropped) next.let();
    }
    // The array is emptied once all of it was read: a long storm never keeps its dead entries.
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
  };
  /** One timer at a time, until the next place is given back, while any request waits. */
  const schedule = () => {
    if (timer || debt <= 0 || head >= queue.length) return;
    timer = true;
    // The time until the debt has fallen by one place from where it is.
    const ms = Math.max(1, Math.ceil((debt - Math.floor(debt - 1e-9)) * perPlaceMs));
    void clock.sleep(ms).then(() => {
      timer = false;
      expire();
      letIn();
      schedule();
    });
  };
  const hold = () => {
    expire();
    // At most every place: a burst of cut-offs that passed while the gate was open (honest
    // concurrency is never held) must not keep it shut for longer than one hold: 100 at once
    // kept every request out for 2 s (e2e cutoff-storm, the other client's search: 1,966 ms).
    debt = Math.min(max, debt + 1);
  };
  /** A pass that reports once; `queued`: it holds a place until then. @returns {Pass} */
  const pass = (/** @type {boolean} */ queued) => {
    let reported = false;
    const report = (/** @type {boolean} */ cut) => {
      if (reported) return;
      reported = true;
      if (queued) letInFlight--;
      if (cut) hold();
      expire();
      letIn();
      schedule();
    };
    return { cutOff: () => report(true), done: () => report(false) };
  };

  return {
    admit(gone) {
      expire();
      if (used() < max && head >= queue.length) return pass(false);
      return new Promise((resolve) => {
        const entry = {
          dropped: false,
          let: () => {
            unregister();
            letInFlight++;
            resolve(pass(true));
          },
        };
        const unregister = gone(() => {
          entry.dropped = true;
          resolve(undefined);
        });
        queue.push(entry);
        schedule();
      });
    },
    held: () => (expire(), used()),
    waiting: () => {
      let count = 0;
      for (let i = head; i < queue.length; i++) if (!queue[i]?.dropped) count++;
      return count;
    },
  };
}
