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
 *
 * A second bound, per caller: the host's one thread takes requests in order of arrival, so 600
 * requests sent at once by one client (no cut-off needed) put another client's `search` behind
 * all of them there (7.8 s). A caller may have at most {@link FRESH_MAX} requests at the host
 * that have not begun to answer (their answer's head has not come) and were sent less than
 * {@link FRESH_MS} ago; past that its requests wait here. The time limit keeps long requests
 * (an `execute` whose JSON answer comes whole after its run) from holding a caller's share
 * for their whole run: its next ones go on a second later, and the host was then given them
 * at most FRESH_MAX a second.
 *
 * Waiting requests are let in by caller, not by arrival: each names its caller (e.g. the local
 * process at the other end of its connection: callers/peer-owners.mjs), and the caller let in
 * longest ago goes next, its oldest request first. One queue in order of arrival let a client
 * that keeps 600 requests waiting (each cut off once its answer began) hold another client's
 * `search` behind all of them: 18.8 s at 32 a second. By caller, that search waits for one
 * request of each other caller at most.
 *
 * The share counts bytes too: what the host spends on a request before it can answer (reading
 * the body, checking its shape, parsing it) grows with the body, so 16 requests of 3.6 MiB sent
 * back to back by one client (arrays nested 1.9 million deep, each refused after ~40 ms of the
 * host's thread) held another client's `search` up to 1 s behind them there (e2e client-bodies,
 * p50 259 ms). A caller's requests at the host not yet answering may hold at most
 * {@link FRESH_BYTES} of body between them, except that one request always may.
 *
 * A request may also wait here for its caller's name ({@link NOT_NAMED_YET}: a new connection's
 * process is not known until the front's look at /proc, callers/peer-owners.mjs). It is no one's
 * turn and holds no place until it is named; requests that are named go on past it. Sent before
 * its name, it would reach the host as nobody's, which the host caps for no one: a process that
 * sent each program on a new connection took every runner (callers/caller-wait.mjs). Waiting in
 * this queue, once named it is let in by its caller's turn and share like any other, never all
 * at once with every request the same look named (a wait before the gate let each look release
 * its batch at once: another client's `search` waited 1.3 s behind such bursts, e2e cutoff-storm).
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
 * How many requests of one caller may be at the host not yet answering (sent less than
 * {@link FRESH_MS} ago) before its next ones wait: ~0.3–0.5 s of the host's thread at ~10–15 ms
 * a request on a loaded 2-core machine, which is what another caller's request may find ahead
 * of it there. Honest clients send far fewer at once (16 clients in one process: 16).
 */
export const FRESH_MAX = 32;
/**
 * How long a request sent to the host counts against its caller's {@link FRESH_MAX} when its
 * answer has not begun: by then the host has begun it unless it is flooded.
 */
export const FRESH_MS = 1_000;
/**
 * How many bytes of request bodies one caller's requests counted against its share (see
 * {@link FRESH_MAX}) may hold between them: at the ~10–25 ms per MiB the host spends on a body
 * built to be costly to read (loaded 2-core machine), ~0.1–0.2 s of its thread that another
 * caller's request may find ahead of it. A caller with nothing counted may always send one body,
 * however large (up to the route's limit).
 */
export const FRESH_BYTES = 8 * 1024 * 1024;

/**
 * What a request's `caller()` answers while its caller is not known yet and it should wait to
 * be named: it is passed over (no turn, no place) until `caller()` names someone.
 */
export const NOT_NAMED_YET = undefined;

/**
 * What a request that passed the gate reports: `began()` when its answer's head came (it no
 * longer counts against its caller's share; may be left out), then once, when its exchange
 * ends, `cutOff()` when its client left before its answer ended (it holds a place: cut-off
 * places are given back CUT_OFF_MAX per CUT_OFF_HOLD_MS), else `done()`.
 * @typedef {{ began: () => void, cutOff: () => void, done: () => void }} Pass
 */

/**
 * @typedef {object} CutOffGate
 * @property {(gone: (drop: () => void) => () => void, caller?: () => string | undefined, bytes?: number) => Pass | Promise<Pass | undefined>} admit
 *   a {@link Pass} at once when no bound holds (`bytes`: the request's body length, counted
 *   against its caller's {@link FRESH_BYTES}); else a promise of one once the request's turn
 *   came, or of undefined when its client left first (`gone(drop)` registers `drop` for that
 *   moment and returns what unregisters it). A request let in from the queue holds a place
 *   until its answer began, its pass reported or FRESH_MS passed. `caller()` names who sent it, asked each time the gate chooses
 *   (a name may be learnt while the request waits); requests without one (or named "") share
 *   one turn and count against no caller's share; one whose `caller()` answers
 *   {@link NOT_NAMED_YET} waits until it names someone (call `recheck` then).
 * @property {() => number} held - places held now
 * @property {() => number} waiting - requests waiting now
 * @property {() => void} recheck - lets waiting requests in that may go now: a waiting request's
 *   caller was named (its own turn and share may let it in before the gate's next event)
 * @property {() => void} recheckSoon - {@link CutOffGate.recheck} once, at the event loop's next
 *   turn, however many times it is asked meanwhile: a look names up to 1,024 sockets at once and
 *   a burst's waits run out together, and each recheck walks the whole queue
 */

/**
 * Creates the gate.
 * @param {{ clock?: import("../clock.mjs").Clock, holdMs?: number, max?: number, freshMax?: number, freshMs?: number, freshBytes?: number }} [options]
 * @returns {CutOffGate}
 */
export function createCutOffGate({
  clock = systemClock,
  holdMs = CUT_OFF_HOLD_MS,
  max = CUT_OFF_MAX,
  freshMax = FRESH_MAX,
  freshMs = FRESH_MS,
  freshBytes = FRESH_BYTES,
} = {}) {
  /**
   * Places held by requests cut off after they were sent: each adds one, and they are given
   * back steadily, one every holdMs / max (so CUT_OFF_MAX per CUT_OFF_HOLD_MS). Steadily, not
   * each a hold later: holds taken together ended together, and a request that came just after
   * such a moment waited for the next one (0.7–0.9 s in e2e cutoff-storm at load 11).
   */
  let debt = 0;
  let debtAt = clock.now();
  /**
   * Waiting requests, in order of arrival; a dropped one is skipped (and removed at the next walk).
   * `arrived`: how many requests had been let in from the queue when it came (see `next`).
   * @type {{ let: (name: string) => void, dropped: boolean, caller: () => string | undefined, bytes: number, arrived: number }[]}
   */
  let queue = [];
  /**
   * When each caller with waiting requests was last let in (a count of requests let in): the
   * caller let in longest ago goes next. Only callers that wait are kept: one whose requests
   * were all let in comes back as a caller new to the line, which ranks as let in a turn before
   * its oldest waiting request came ({@link NEW_CALLER_AHEAD}): ahead of every caller let in
   * since, and of one let in just before (what a client with one request at a time should get:
   * its turn next), not ahead of one that has waited longer than that.
   * Ranked ahead of everyone instead (session 32), a stream of new callers (a fresh process
   * for each request) kept a caller with requests waiting out for as long as it lasted.
   * @type {Map<string, number>}
   */
  let lastLetIn = new Map();
  let letCount = 0;
  /**
   * Each caller's requests at the host that count against {@link FRESH_MAX}, and their body
   * bytes ({@link FRESH_BYTES}); callers with none are not kept.
   * @type {Map<string, { count: number, bytes: number }>}
   */
  const fresh = new Map();
  /** Requests let in from the queue that still hold a place (see `pass`). */
  let letInFlight = 0;
  let timer = false;
  const perPlaceMs = holdMs / max;

  const expire = () => {
    const now = clock.now();
    debt = Math.max(0, debt - (now - debtAt) / perPlaceMs);
    debtAt = now;
  };
  const used = () => Math.ceil(debt - 1e-9) + letInFlight;
  // A request that names no caller counts against no share: where callers cannot be told
  // apart (no /proc), one share for everyone would pace every client by one client's burst.
  const hasRoom = (/** @type {string} */ name, /** @type {number} */ bytes) => {
    if (name === ANYONE) return true;
    const counted = fresh.get(name);
    return (
      counted === undefined || (counted.count < freshMax && counted.bytes + bytes <= freshBytes)
    );
  };
  /**
   * Takes the next request to let in out of the queue: the oldest of the caller let in longest
   * ago (callers never let in before first, in order of their oldest request), among callers
   * with room for their oldest; a request not named yet is passed over (its caller's next one
   * may go before it: it is not in any turn yet). One walk over the queue, which also drops the
   * dropped entries and the callers no longer waiting.
   */
  const next = () => {
    /** @type {typeof queue} */
    const live = [];
    /** @type {Set<string>} */
    const seen = new Set();
    let best = -1;
    let bestAt = Infinity;
    /** @type {string} */
    let bestName = "";
    for (const entry of queue) {
      if (entry.dropped) continue;
      const name = entry.caller();
      if (name !== NOT_NAMED_YET && !seen.has(name)) {
        seen.add(name);
        const at = lastLetIn.get(name) ?? entry.arrived - NEW_CALLER_AHEAD;
        if (at < bestAt && hasRoom(name, entry.bytes)) {
          bestAt = at;
          best = live.length;
          bestName = name;
        }
      }
      live.push(entry);
    }
    for (const name of lastLetIn.keys()) if (!seen.has(name)) lastLetIn.delete(name);
    queue = live;
    if (best < 0) return undefined;
    const [chosen] = queue.splice(best, 1);
    lastLetIn.set(bestName, letCount++);
    return { entry: /** @type {NonNullable<typeof chosen>} */ (chosen), name: bestName };
  };
  /** Whether a waiting request may go now but for room: one not dropped and named. */
  const anyNamedWaiting = () =>
    queue.some((entry) => !entry.dropped && entry.caller() !== NOT_NAMED_YET);
  /** Lets waiting requests in while places are free. */
  const letIn = () => {
    while (used() < max && queue.length > 0) {
      const chosen = next();
      if (!chosen) break;
      chosen.entry.let(chosen.name);
    }
    if (queue.length === 0) lastLetIn = new Map();
  };
  /** One timer at a time, until the next place is given back, while any request waits. */
  const schedule = () => {
    if (timer || debt <= 0 || queue.length === 0) return;
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
  /**
   * A pass that reports once. Until its answer began, its exchange ended or freshMs passed,
   * whichever is first, it counts against its caller's share (`name`, as it was when let in)
   * and, `queued` (let in from the queue), holds a place: so a storm waiting here goes in
   * CUT_OFF_MAX at most at once, and requests the host has begun (or answers that come whole
   * only at their run's end) do not keep others out.
   * @returns {Pass}
   */
  const pass = (
    /** @type {boolean} */ queued,
    /** @type {string} */ name,
    /** @type {number} */ bytes,
  ) => {
    let reported = false;
    let counted = true;
    const mine = fresh.get(name) ?? { count: 0, bytes: 0 };
    mine.count++;
    mine.bytes += bytes;
    fresh.set(name, mine);
    if (queued) letInFlight++;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      const left = fresh.get(name);
      if (left && --left.count > 0) left.bytes -= bytes;
      else fresh.delete(name);
      if (queued) letInFlight--;
      expire();
      letIn();
      schedule();
    };
    void clock.sleep(freshMs).then(uncount);
    const report = (/** @type {boolean} */ cut) => {
      if (reported) return;
      reported = true;
      // The cut-off's place is taken before the request's own is given back: nothing slips in
      // between.
      if (cut) hold();
      uncount();
      expire();
      letIn();
      schedule();
    };
    return { began: uncount, cutOff: () => report(true), done: () => report(false) };
  };

  const recheck = () => {
    expire();
    letIn();
    schedule();
  };
  let recheckDue = false;

  return {
    admit(gone, caller = anyone, bytes = 0) {
      expire();
      const name = caller();
      // Requests waiting only for their names are not ahead of this one.
      if (name !== NOT_NAMED_YET && used() < max && hasRoom(name, bytes) && !anyNamedWaiting())
        return pass(false, name, bytes);
      return new Promise((resolve) => {
        const entry = {
          dropped: false,
          caller,
          bytes,
          arrived: letCount,
          let: (/** @type {string} */ named) => {
            unregister();
            resolve(pass(true, named, bytes));
          },
        };
        const unregister = gone(() => {
          entry.dropped = true;
          resolve(undefined);
        });
        queue.push(entry);
        // Places may be free, for a caller that has room (the queue may hold only callers
        // at their share). Not for a request not named yet: it cannot go, and nothing changed
        // for the others (what may let them in calls letIn itself). Each walk asks every
        // waiting request's caller: 2,000 new connections' requests waiting for their names
        // cost the front's thread 0.5-0.75 s in walks on their arrival (attack29).
        if (name !== NOT_NAMED_YET) letIn();
        schedule();
      });
    },
    held: () => (expire(), used()),
    recheck,
    recheckSoon: () => {
      if (recheckDue) return;
      recheckDue = true;
      setImmediate(() => {
        recheckDue = false;
        recheck();
      });
    },
    waiting: () => queue.reduce((count, entry) => count + (entry.dropped ? 0 : 1), 0),
  };
}

/**
 * How many turns before its oldest waiting request came a caller new to the line ranks as let
 * in: a turn and a half, so it goes before a caller let in just before it came (a client with one
 * request at a time is let in next) and a caller let in longer ago than that goes first (a
 * stream of new callers takes turns with a caller whose requests wait, by when they came).
 */
const NEW_CALLER_AHEAD = 1.5;

/** The caller of a request that names none: all such share one turn, and no share. */
const ANYONE = "";
const anyone = () => ANYONE;
