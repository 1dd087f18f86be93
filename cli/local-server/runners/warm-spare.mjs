/**
 * The warm spare's lifetime (docs/local-runtime.md, "Runners on demand"): the slots beyond the
 * configured count hold temporary runners for runs that arrive while every regular runner may
 * be held by a program blocking its thread (the host takes a spare only then:
 * src/executor/runners/placement/runner-placement.ts, SPARE). Such a run must not wait for a
 * start (0.3–3 s on a loaded 2-core machine; e2e fair-share), so while the pool is busy (a
 * runner beyond the kept ones runs: the host asked for one) each spare runs too, started right after the regular
 * runner the host asked for (one start at a time: two at once take ~1.5–3 s each on a 2-core
 * machine, one alone 0.3–0.9 s), and kept until the pool is idle again; it costs one runner
 * (~55 MB, more with the shared worker's engine) while busy, nothing idle. A host's ring on a
 * spare's doorbell starts an empty regular slot while there is one, so a spare runs beyond
 * `count` only when every regular runner runs.
 *
 * Pure: runner-pool.mjs holds the slots, asks here, and starts and ends the runners.
 */

/**
 * @typedef {object} SpareSlot
 * @property {number} index - 1-based
 * @property {boolean} spare - beyond the configured count
 * @property {{ killedBecause: string | undefined } | null} runtime
 */

/**
 * Whether the pool is busy: a runner beyond the first `keep` (those kept running) runs, so the
 * host found the kept ones not enough and asked for more.
 * @param {readonly SpareSlot[]} slots
 * @param {number} keep
 */
export function poolBusy(slots, keep) {
  return slots.some(
    (s) =>
      !s.spare && s.index > keep && s.runtime !== null && s.runtime.killedBecause === undefined,
  );
}

/**
 * The slot whose runner a ring on `rung`'s doorbell starts: an empty regular slot first when a
 * spare was rung (spares run beyond `count` only), else `rung` itself.
 * @template {SpareSlot} S
 * @param {S} rung
 * @param {readonly S[]} slots
 * @param {(slot: S) => boolean} empty - no runner and none on its way
 * @returns {S}
 */
export function slotForRing(rung, slots, empty) {
  return (rung.spare && slots.find((s) => !s.spare && empty(s))) || rung;
}

/**
 * The spare slots to start now, once a regular runner the host asked for has started: each
 * empty spare, while the pool is busy.
 * @template {SpareSlot} S
 * @param {readonly S[]} slots
 * @param {number} keep
 * @param {(slot: S) => boolean} empty
 * @returns {S[]}
 */
export function sparesToStart(slots, keep, empty) {
  if (!poolBusy(slots, keep)) return [];
  return slots.filter((s) => s.spare && empty(s));
}

/**
 * Whether an idle runner in `slot` stays regardless of how long it has been idle: a spare, while
 * the pool is busy (it stands ready; it ends with the pool's last runner beyond the kept ones).
 * @param {SpareSlot} slot
 * @param {readonly SpareSlot[]} slots
 * @param {number} keep
 */
export function spareStays(slot, slots, keep) {
  return slot.spare && poolBusy(slots, keep);
}
