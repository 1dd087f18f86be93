/**
 * A run's place among its runner slot's runs, held only while the request that sent it is alive
 * (issue #40, "a client that never finishes": a client that cuts its requests off must not
 * leave runs behind). The runner loader (runner-loader.ts) puts each run it sends among its
 * slot's runs and takes it out when the call to the runner settles. workerd drops a request's
 * context when it gives the request up (its client went away): every promise of that context
 * then stays pending for good and no callback of it ever runs again, so such a run was never
 * taken out. Each one left its slot looking busy for good (and its caller as using it: the
 * per-caller cap, runner-placement.ts), and every placement walked it. Measured (2026-12-07, a
 * single cut-off `execute` on an idle server): the slot kept the run; 600 cut off, 100 at a
 * time, left ~490 such runs on 4 slots, 3,000 left ~1,000 and made every later placement and
 * every look of a waiting run walk them (the host's thread saturated, `/health` unanswered for
 * 30 s: the host was replaced).
 *
 * So a run renews its place from its own context, every {@link RUN_LEASE_BEAT_MS} (a timer of
 * its request, which workerd cancels with the request), and a place not renewed for
 * {@link RUN_LEASE_MS} is dropped at the next look ({@link dropLapsed}). Only the beat tells a
 * dropped context from a live one: the run's own promises say nothing, and a runner whose thread
 * a program holds says nothing either (its runs must keep counting: runner-placement.ts).
 *
 * Does not do: take out a run whose call settled (runner-loader.ts does, at once), or tell a run
 * that holds its runner's thread from one that waits (runner-placement.ts, RUNNER_HELD_MAX_MS).
 */
import type { PlacedSlot, RunOnSlot } from "./runner-placement";

/** How often a run under way renews its place (one timer tick of its own request). */
export const RUN_LEASE_BEAT_MS = 1_000;

/**
 * How long a run's place lasts without renewal: five beats, so a host thread busy for a few
 * seconds (a loaded machine, a burst) never drops a live run; far below the run timeout
 * (30 s by default), which bounded such runs before only where the host's own timer ran.
 */
export const RUN_LEASE_MS = 5_000;

/**
 * Starts renewing `run`'s place: now, then every {@link RUN_LEASE_BEAT_MS} from the caller's
 * own context, until the returned function is called (the run settled).
 * @param run - the run's entry among its slot's runs
 * @param now - the loader's clock
 * @returns ends the renewal
 */
export function renewLease(run: RunOnSlot, now: () => number): () => void {
  run.aliveAt = now();
  const beat = setInterval(() => {
    run.aliveAt = now();
  }, RUN_LEASE_BEAT_MS);
  return () => clearInterval(beat);
}

/**
 * Drops from each slot the runs whose place lapsed at `now` (not renewed for
 * {@link RUN_LEASE_MS}: their request's context is gone). A run without a lease (`aliveAt`
 * unset) never lapses. Walks each slot's runs once.
 * @param slots - the loader's slots
 * @param now - the loader's clock now
 * @returns how many were dropped
 */
export function dropLapsed(slots: readonly PlacedSlot[], now: number): number {
  let dropped = 0;
  for (const slot of slots)
    for (const run of slot.runs)
      if (run.aliveAt !== undefined && now - run.aliveAt > RUN_LEASE_MS) {
        // A call that settles after all deletes it again: nothing else refers to it.
        slot.runs.delete(run);
        dropped++;
      }
  return dropped;
}
