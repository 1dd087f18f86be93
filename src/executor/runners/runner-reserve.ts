/**
 * The warm reserve (docs/local-runtime.md, "Runners on demand"): which runner slot the host rings
 * so that the supervisor starts its runner before a run needs it. The local server starts
 * runners on demand (cli/local-server/runners/runner-pool.mjs): a slot without a runner has a doorbell
 * that starts one when the host connects there. A run that had to ring it itself waits for the
 * start (0.5–3 s on a loaded 2-core machine); the reserve rings one slot ahead of the work
 * instead, the moment no runner known to serve is idle any more.
 *
 * Pure: the runner loader (runner-loader.ts) owns the slots and the clock, passes both in, and
 * sends the ring ({@link RESERVE_RING}) to the slot chosen here.
 */
import { IDLE, tierOf, type PlacedSlot } from "./placement/runner-placement";

/**
 * The name a reserve ring asks a slot for: a stable worker that never exists (a runner keeps
 * stable code only under its SHA-256), so a runner that serves answers `missingCode` and runs
 * nothing, and a slot without one (its doorbell, cli/local-server/runners/runner-pool.mjs) ends the
 * connection, which asks the supervisor for a runner.
 */
export const RESERVE_RING = "reserve";

/**
 * How long a rung slot counts as the reserve on its way: no other slot is rung meanwhile. A
 * runner starts in 0.5–3 s on a loaded 2-core machine (bench/README.md, "Runners on demand");
 * past this a slot still cold is rung again (its start may have failed), or another one.
 */
export const RESERVE_PENDING_MS = 3_000;

/** One runner slot, as the reserve sees it. */
export interface ReserveSlot extends PlacedSlot {
  /** When the reserve last rang it (0: never). */
  rungAt: number;
}

/**
 * The slot to ring now, if any: one regular cold slot with no run on its way, once no runner
 * known to serve is idle. None while a runner is idle (an idle server keeps its one runner and
 * no more), none while a slot rung less than {@link RESERVE_PENDING_MS} ago is still cold (its
 * runner is on its way), never the spare (asked for only by placement, when every runner may be
 * held), and not a resting slot (it has just refused a run: the supervisor is starting its
 * runner already). The caller marks the slot rung (`rungAt`) and rings it.
 */
export function slotToRing<S extends ReserveSlot>(slots: readonly S[], now: number): S | undefined {
  if (slots.some((slot) => !slot.cold && tierOf(slot, now) === IDLE)) return undefined;
  const cold = slots.filter((slot) => slot.cold && !slot.spare && slot.runs.size === 0);
  if (cold.some((slot) => slot.rungAt > 0 && now - slot.rungAt < RESERVE_PENDING_MS))
    return undefined;
  return cold.find((slot) => slot.restUntil <= now);
}
