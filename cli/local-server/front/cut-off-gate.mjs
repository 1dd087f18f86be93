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
 * Each request whose client left before its answer ended, after it was sent, holds a place for
 * {@link CUT_OFF_HOLD_MS} (about the time the host takes to give such a request up when it is
 * not flooded). While {@link CUT_OFF_MAX} places are held, new requests wait here, in order of
 * arrival, before they reach the host; one whose client leaves while it waits is dropped here
 * at no cost to the host. So cut-off requests reach the host at most CUT_OFF_MAX per
 * CUT_OFF_HOLD_MS, whatever their number, and honest requests are never held while no one cuts
 * requests off. Measured after (bench/README.md, "Cut-off storm").
 */
import { systemClock } from "../clock.mjs";

/** How long a request cut off after it was sent counts against the bound. */
export const CUT_OFF_HOLD_MS = 1_000;
/**
 * How many requests cut off within {@link CUT_OFF_HOLD_MS} the host is sent before new requests
 * wait: a client's honest cancels (a closed stream, a gone tab) are far fewer; a storm of them is
 * paced to this (each such `execute` costs the host a few milliseconds and a runner a run).
 */
export const CUT_OFF_MAX = 32;

/**
 * What a request that passed the gate reports once, when its exchange ends: `cutOff()` when its
 * client left before its answer ended (it holds a place for the hold time), else `done()`.
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
  /** When each held place is given back, oldest first (each lasts the same holdMs). @type {number[]} */
  const holds = [];
  /** Waiting requests, in order of arrival; a dropped one is skipped. @type {{ let: () => void, dropped: boolean }[]} */
  const queue = [];
  let head = 0;
  /** Requests let in from the queue whose exchange has not ended: each holds a place. */
  let letInFlight = 0;
  let timer = false;

  const expire = () => {
    const now = clock.now();
    let gone = 0;
    while (gone < holds.length && /** @type {number} */ (holds[gone]) <= now) gone++;
    if (gone > 0) holds.splice(0, gone);
  };
  const used = () => holds.length + letInFlight;
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
  /** One timer at a time, for the oldest place held, while any request waits. */
  const schedule = () => {
    if (timer || holds.length === 0 || head >= queue.length) return;
    timer = true;
    void clock.sleep(Math.max(0, /** @type {number} */ (holds[0]) - clock.now())).then(() => {
      timer = false;
      expire();
      letIn();
      schedule();
    });
  };
  const hold = () => {
    expire();
    holds.push(clock.now() + holdMs);
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
