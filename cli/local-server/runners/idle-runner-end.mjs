/**
 * When a runner beyond the kept ones is ended for being idle (issue #43: an idle runner costs
 * ~59 MB; docs/local-runtime.md, "Runners on demand"). A runner beyond the first `keep` that has
 * begun no run and had none under way for {@link IDLE_END_MS} ({@link SPARE_IDLE_END_MS} for a
 * spare) is due; the warm spare stays while the pool is busy (warm-spare.mjs). What is seen is
 * the watchdog's latest probe of each runner (every 500 ms): no request of its own.
 *
 * Pure but for each slot's `seenBegun`/`idleSince`, which it keeps: runner-pool.mjs holds the
 * slots, asks here once a look ({@link idleRunnersToEnd}) and retires those named (asked,
 * drained: slot-retirement.mjs), after which their slots get their doorbells back.
 */
import { countsOf } from "./runner-retirement.mjs";
import { spareStays } from "./warm-spare.mjs";

/**
 * How long a runner beyond the kept ones may sit idle (no run begun, none under way, as its
 * `/health` counts show) before it is ended. A fresh runner costs the run that asked for it
 * ~0.5–2 s (bench/README.md, "Runners on demand"), so a pause in the work shorter than this
 * keeps it; an idle runner costs ~59 MB.
 */
export const IDLE_END_MS = 30_000;
/**
 * How long a spare runner (beyond the configured count) may sit idle before it is ended: it
 * exists for a round of stalling programs, which ends within the watchdog's 10 s.
 */
export const SPARE_IDLE_END_MS = 10_000;

/**
 * @typedef {object} IdleSlot
 * @property {number} index - 1-based
 * @property {boolean} spare - beyond the configured count
 * @property {boolean} retiring
 * @property {boolean} starting
 * @property {number} seenBegun - its runner's runs begun when last seen changing
 * @property {number} idleSince - since when (clock time)
 * @property {{ killedBecause: string | undefined, lastHeaders: import("node:http").IncomingHttpHeaders | undefined } | null} runtime
 */

/**
 * One look at the slots: the runners to end now for being idle, each with its runs begun and
 * the idle time that ended it. A runner seen busy (a run begun since the last look, or one
 * under way) has its slot's idle time start again at `now`; kept slots, retiring or starting
 * ones, and runners not yet probed are passed over.
 * @template {IdleSlot} S
 * @param {readonly S[]} slots - every slot of the pool, spares last
 * @param {number} keep - the first `keep` slots' runners are kept running
 * @param {number} now - the pool's clock now
 * @param {boolean} [keptSpare] - the spares are kept running too (runner-pool.mjs,
 *   `keepWarmSpare`: with the shared worker's engine)
 * @returns {{ slot: S, runtime: NonNullable<S["runtime"]>, begun: number, idleMs: number }[]}
 */
export function idleRunnersToEnd(slots, keep, now, keptSpare = false) {
  /** @type {{ slot: S, runtime: NonNullable<S["runtime"]>, begun: number, idleMs: number }[]} */
  const due = [];
  for (const slot of slots) {
    const runtime = slot.runtime;
    if (!runtime || runtime.killedBecause || slot.retiring || slot.starting || slot.index <= keep)
      continue;
    if (slot.spare && keptSpare) continue;
    const seen = countsOf(runtime.lastHeaders);
    if (!seen) continue;
    if (seen.underWay > 0 || seen.begun !== slot.seenBegun) {
      slot.seenBegun = seen.begun;
      slot.idleSince = now;
      continue;
    }
    const idleMs = slot.spare ? SPARE_IDLE_END_MS : IDLE_END_MS;
    // The warm spare stays while the pool is busy (warm-spare.mjs).
    if (spareStays(slot, slots, keep)) continue;
    if (now - slot.idleSince >= idleMs)
      due.push({
        slot,
        runtime: /** @type {NonNullable<S["runtime"]>} */ (runtime),
        begun: seen.begun,
        idleMs,
      });
  }
  return due;
}
