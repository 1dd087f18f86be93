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
 * not in one burst. It lasts {@link CALLER_WAIT_MS} at most; past that (looks slowed by a storm
 * of connections, their waiting list full) the request goes on as `unknown`, as before. Reads
 * and preflights do not wait: they start no run.
 */
import { NOT_NAMED_YET } from "../cut-off-gate.mjs";
import { UNKNOWN } from "./peer-owners.mjs";

/**
 * The longest a request waits for its connection's caller: past it the request goes on as
 * `unknown`. Five look gaps (peer-owners.mjs LOOK_GAP_MS): a look under a storm of connections
 * takes tens of milliseconds and rests four times that.
 */
export const CALLER_WAIT_MS = 1_000;

/**
 * Who is at the other end of a connection, and whether a look for it is still to come.
 * @typedef {object} ConnectionCallers
 * @property {(socket: import("node:net").Socket) => string} of - the key now (peer-owners.mjs)
 * @property {(socket: import("node:net").Socket) => boolean} [looking] - whether the socket
 *   waits for a look (its key may still be found); absent: never
 */

/**
 * The gate's `caller()` for one request: its connection's key, or {@link NOT_NAMED_YET} while
 * the request may start a run, its connection waits for a look and it has waited less than
 * `maxMs`. `due()` is called once when the wait runs out (the gate is then asked again: nothing
 * else would wake it), unless `stop()` was called first (the request was let in or dropped).
 * @param {ConnectionCallers} callers
 * @param {import("node:net").Socket} socket
 * @param {{ method: string | undefined, due: () => void, maxMs?: number, now?: () => number }} options
 * @returns {{ caller: () => string | undefined, stop: () => void }}
 */
export function callerOnceNamed(
  callers,
  socket,
  { method, due, maxMs = CALLER_WAIT_MS, now = Date.now },
) {
  if (!callers.looking || startsNoRun(method))
    return { caller: () => callers.of(socket), stop() {} };
  const since = now();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let stopped = false;
  return {
    caller() {
      const key = callers.of(socket);
      if (key !== UNKNOWN || stopped || now() - since >= maxMs || !callers.looking?.(socket))
        return key;
      // Armed once, on the first time the request is found waiting.
      timer ??= setTimeout(
        () => {
          if (!stopped) due();
        },
        Math.max(0, since + maxMs - now()),
      );
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
