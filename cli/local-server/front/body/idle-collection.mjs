/**
 * Gives back the memory a burst of request bodies leaves. The bytes of every body, and of every
 * piece the front read and dropped, live in ArrayBuffers that only a garbage collection frees;
 * V8 collects when JavaScript allocates, and after a burst the front is idle: 120 uploads left
 * ~190 MiB of dead buffers in the `npm start` process, unchanged minutes later (issue #40). So a
 * cheap check (every {@link CHECK_EVERY_MS}) runs one full collection when the process's
 * ArrayBuffers grew by {@link GROWTH_BYTES} since the last one; in ordinary use (small MCP
 * bodies) it never does.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** How often the ArrayBuffers' total is looked at. */
export const CHECK_EVERY_MS = 2_000;
/** Growth of the ArrayBuffers' total since the last collection that calls for one. */
export const GROWTH_BYTES = 32 * 1_048_576;

/**
 * V8's full collection, without starting Node with `--expose-gc`: the flag set now exposes `gc`
 * in contexts created after it (not in the main one, so no program sees it).
 * @returns {() => void}
 */
export function exposedGc() {
  setFlagsFromString("--expose-gc");
  return /** @type {() => void} */ (runInNewContext("gc"));
}

/**
 * Whether a collection is due: the ArrayBuffers grew by `growthBytes` since the last one, or the
 * bodies held then (still alive at that collection) were let go since by as much.
 * @param {{ buffers: number, held: number }} now - the ArrayBuffers' total and the bytes of
 *   bodies held, now
 * @param {{ buffers: number, held: number }} last - the same right after the last collection (or
 *   at the start)
 * @param {number} [growthBytes]
 */
export function collectionDue(now, last, growthBytes = GROWTH_BYTES) {
  return now.buffers - last.buffers >= growthBytes || last.held - now.held >= growthBytes;
}

/**
 * Starts the check. `stop()` ends it (its timer never keeps the process alive anyway).
 * @param {object} options
 * @param {() => number} options.held - bytes of request bodies held now (the front's budget)
 * @param {() => number} [options.arrayBuffers] - the ArrayBuffers' total, in bytes
 * @param {() => void} [options.gc] - a full collection
 * @param {number} [options.everyMs]
 */
export function startIdleCollection({
  held,
  arrayBuffers = () => process.memoryUsage().arrayBuffers,
  gc = exposedGc(),
  everyMs = CHECK_EVERY_MS,
}) {
  const sample = () => ({ buffers: arrayBuffers(), held: held() });
  let last = sample();
  const check = () => {
    const now = sample();
    if (!collectionDue(now, last)) {
      // What fell by itself (V8 collected, bodies were let go) is the new base.
      last = { buffers: Math.min(last.buffers, now.buffers), held: Math.max(last.held, now.held) };
      return false;
    }
    gc();
    last = sample();
    return true;
  };
  const timer = setInterval(check, everyMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
