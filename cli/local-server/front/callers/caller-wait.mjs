/**
 * A request that may start a run waits for its connection's caller to be known before the host
 * gets it. The host places runs by the caller (src/app/placement-caller.ts: each local process
 * may use all runners but one), and a new connection's caller is `unknown` until its first look
 * (peer-owners.mjs: within ~200 ms, a few ms on an idle server). Sent at once, a new
 * connection's first request went as `unknown`, which the host caps for no one (one shared name
 * would let a hostile process fill every new client's first turn): a process that sent each
 * program on a new connection held every runner at once (bench/README.md, "Each local process a
 * caller"), and one that ran one stall more than there are runners kept another client's
 * `search` waiting 9–10 s (e2e fair-share).
 *
 * The wait is the gate's (cut-off-gate.mjs, {@link NOT_NAMED_YET}): the request waits in its
 * queue, passed over, so when a look names many requests at once they go by turns and shares,
 * not in one burst. Until a look has read the table since the socket came, it waits up to
 * {@link CALLER_WAIT_MS}; past that (looks stopped by faults, their waiting list full) the request
 * goes on as `unknown`, as before. Reads and preflights do not wait: they start no run.
 *
 * Once the table showed the connection's socket (peer-owners.mjs `seenAs`) and only its holder
 * is still being looked for, the request waits up to {@link SEEN_WAIT_MS} (since it came) for
 * the scans that find the holder or give it its user's key, and goes on by that user's key, never
 * as `unknown`. Sent as `unknown` at 1 s, a process that hid its sockets behind 15,000
 * descriptors (past the scan's link budget: given `user:<uid>` only after two scans, a second
 * apart) had every run placed as nobody: 6 CPU loops took every runner, and another process's
 * `search` waited 4.6 s (attack29, bench/diagnostics/one-against-another/hidden-holder.mjs).
 */
import { NOT_NAMED_YET } from "../cut-off-gate.mjs";
import { UNKNOWN } from "./peer-owners.mjs";

/**
 * The longest a request waits for the first look at its connection (the table not read since it
 * came): past it the request goes on as `unknown`. Looks come every LOOK_GAP_MS (200 ms) while
 * they are quick, but a look rests four times its length (peer-owners.mjs LOOK_REST): 900
 * connections of a process hiding its sockets made looks of 165–928 ms, so the next one came up
 * to ~4.6 s later. At 1 s (before) most of that process's requests went on as `unknown`, placed
 * for nobody, and another process's search waited 5.4–10.5 s; with a 6 s wait none did, and it
 * waited 1.8–3.4 s (attack29, bench/diagnostics/one-against-another/unnamed-crowd.mjs).
 */
export const CALLER_WAIT_MS = 5_000;
/**
 * The longest a request waits for its caller once the table showed its socket (its holder not
 * found yet): a new process's holder is found at the next scan of every process (one per
 * second, socket-process.mjs SCAN_GAP_MS), a hidden one is given its user's key after two
 * (peer-owners.mjs SCANS_PER_SOCKET); past it the request goes on by that user's key.
 */
export const SEEN_WAIT_MS = 2_500;

/**
 * Who is at the other end of a connection, and whether a look for it is still to come.
 * @typedef {object} ConnectionCallers
 * @property {(socket: import("node:net").Socket) => string} of - the key now (peer-owners.mjs)
 * @property {(socket: import("node:net").Socket) => boolean} [looking] - whether the socket
 *   waits for a look (its key may still be found); absent: never
 * @property {(socket: import("node:net").Socket) => string | undefined} [seenAs] - for a socket
 *   that waits, the key it goes by if its holder stays hidden, once the table showed it
 */

/**
 * The gate's `caller()` for one request: its connection's key, or {@link NOT_NAMED_YET} while
 * the request may start a run, its connection waits for a look and it has waited less than
 * `maxMs` (`seenMaxMs` once the table showed its socket, shorter: only scans are left). Past its wait, a socket the table
 * showed goes by `seenAs` (its user's key), any other as `unknown`; `caller()` answers the same
 * once stopped: the key the request is sent with. `due()` is called when a wait runs out (the
 * gate is then asked again: nothing else would wake it), unless `stop()` was called first (the
 * request was let in or dropped).
 * @param {ConnectionCallers} callers
 * @param {import("node:net").Socket} socket
 * @param {{ method: string | undefined, due: () => void, maxMs?: number, seenMaxMs?: number, now?: () => number }} options
 * @returns {{ caller: () => string | undefined, stop: () => void }}
 */
export function callerOnceNamed(
  callers,
  socket,
  { method, due, maxMs = CALLER_WAIT_MS, seenMaxMs = SEEN_WAIT_MS, now = Date.now },
) {
  if (!callers.looking || startsNoRun(method))
    return { caller: () => callers.of(socket), stop() {} };
  const since = now();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** The wait the timer is armed for (0: none yet). */
  let armed = 0;
  let stopped = false;
  return {
    caller() {
      const key = callers.of(socket);
      if (key !== UNKNOWN || !callers.looking?.(socket)) return key;
      const seen = callers.seenAs?.(socket);
      const limit = seen === undefined ? maxMs : seenMaxMs;
      if (stopped || now() - since >= limit) return seen ?? key;
      // Armed on the first time the request is found waiting, and again once its wait changed
      // (the table showed its socket: only the scans' shorter wait is left).
      if (armed !== limit) {
        armed = limit;
        clearTimeout(timer);
        timer = setTimeout(
          () => {
            if (!stopped) due();
          },
          Math.max(0, since + limit - now()),
        );
      }
      return NOT_NAMED_YET;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Whether a request of `method` cannot start a run (reads and preflights): it need not wait for
 * its caller. Any other may (a `tools/call`, a search); its body is not read for which, since a
 * client can spell a method so that a look at the text misses it.
 * @param {string | undefined} method
 */
function startsNoRun(method) {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}
