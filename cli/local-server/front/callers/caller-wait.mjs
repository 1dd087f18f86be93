/**
 * A request waits for its connection's caller to be known before it goes on to the host. The
 * host places runs by the caller (src/app/placement-caller.ts: each local process may use all
 * runners but one), and a new connection's caller is `unknown` until its first look
 * (peer-owners.mjs: within ~200 ms, a few ms on an idle server). Sent at once, a new connection's
 * first request went as `unknown`, which the host cannot cap (one shared name would let a hostile
 * process fill an honest client's first turn): a process that opened 40 connections and sent a
 * CPU-bound program on each had every runner at once, and another process's `search` waited
 * 11.8 s and failed with the runner that was replaced under it (bench/README.md, "Each local
 * process a caller"). So the request waits for the look, at most {@link CALLER_WAIT_MS}, and its
 * client leaving meanwhile ends the wait (its request is never sent).
 */
import { UNKNOWN } from "./peer-owners.mjs";

/**
 * The longest a request waits for its connection's caller: past it (a look slowed by a storm of
 * connections, the looks' waiting list full) it goes on as `unknown`, as before.
 */
export const CALLER_WAIT_MS = 1_000;

/**
 * @typedef {object} CallerWait
 * @property {(socket: import("node:net").Socket) => string | Promise<string>} of - the
 *   connection's caller: at once when known (or none can be named: `""`), else a promise of it
 *   once its look ended, its connection closed (`unknown`) or {@link CALLER_WAIT_MS} passed
 * @property {(socket: import("node:net").Socket, key: string) => void} known - the looks' word
 *   that a socket's key was found (peer-owners.mjs `onKnown`): its waiting requests go on
 * @property {() => number} waiting - connections with a request waiting now
 */

/**
 * Creates the waits.
 * @param {(socket: import("node:net").Socket) => string} callerOf - the key now (peer-owners.mjs)
 * @param {{ maxMs?: number }} [options] - tests shorten the wait
 * @returns {CallerWait}
 */
export function createCallerWait(callerOf, { maxMs = CALLER_WAIT_MS } = {}) {
  /** Each connection's waiting requests. @type {Map<import("node:net").Socket, Set<(key: string) => void>>} */
  const waiting = new Map();
  return {
    of(socket) {
      const key = callerOf(socket);
      if (key !== UNKNOWN || socket.destroyed) return key;
      return new Promise((resolve) => {
        let waits = waiting.get(socket);
        if (!waits) waiting.set(socket, (waits = new Set()));
        const set = waits;
        /** @param {string} found */
        const done = (found) => {
          clearTimeout(timer);
          socket.off("close", closed);
          set.delete(done);
          if (set.size === 0 && waiting.get(socket) === set) waiting.delete(socket);
          resolve(found);
        };
        const closed = () => done(UNKNOWN);
        // What the looks know by then (a look that ended without telling: still `unknown`).
        const timer = setTimeout(() => done(callerOf(socket)), maxMs);
        set.add(done);
        socket.once("close", closed);
      });
    },
    known(socket, key) {
      const waits = waiting.get(socket);
      if (!waits) return;
      waiting.delete(socket);
      // Each `done` deletes itself from the set: a Set's iteration takes that in its stride.
      for (const done of waits) done(key);
    },
    waiting: () => waiting.size,
  };
}
