/**
 * Retiring a slot's runner (docs/local-runtime.md): it is asked to begin no more runs, its runs
 * under way are waited for, and it is ended; a runner retired after its runs gets a fresh one on
 * its slot's address, one ended for being idle (idle-runner-end.mjs) leaves its slot to its
 * doorbell. Which runner is due after its runs, and the requests that ask it and read its counts,
 * are runner-retirement.mjs's; the slots are runner-pool.mjs's, which builds this with its clock
 * and its runner processes' requests.
 *
 * The wait has a deadline: a run the host gave up on (its timeout passed) may still be counted
 * under way by its runner, and a retirement waiting on it for good would hold the pool's only
 * retirement turn forever (one runner served 6× its due runs, and once every runner stayed
 * retiring). Past the run timeout plus {@link DRAIN_MARGIN_MS} the runner is ended anyway. One
 * asked retirement at a time, so runs always have a runner; a runner found retiring unasked
 * begins no run, so it is replaced at once, beside any other.
 */
import { ANSWER_GRACE_MS, countsOf, nextRetirement } from "./runner-retirement.mjs";

/**
 * Past the run timeout, how long a retiring runner's runs under way are still waited for: the
 * host's own timeout fires at the run timeout, and its answer needs a moment to cross.
 */
export const DRAIN_MARGIN_MS = 10_000;
/** Pause between two looks at a retiring runner's runs under way. */
export const DRAIN_LOOK_MS = 200;

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {{ begun: number, underWay: number, retiring: boolean }} RunnerCounts
 * @typedef {object} RetiringSlot
 * @property {number} index - 1-based
 * @property {number} retired - runners this slot has retired
 * @property {boolean} retiring - its runner is being retired
 * @property {Runtime | null} runtime
 */

/**
 * Waits until `runtime` has no run under way, it is gone, or `deadline` passes.
 * @param {object} options
 * @param {Runtime} options.runtime
 * @param {() => boolean} options.gone - it is no longer the slot's, or the server stops
 * @param {(runtime: Runtime) => Promise<RunnerCounts | null>} options.counts - its counts now
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {number} options.deadline - clock time past which it is not waited for
 * @returns {Promise<"drained" | "gone" | number>} a number: runs still under way at the deadline
 *   (0 when it never answered with its counts)
 */
export async function drain({ runtime, gone, counts, clock, deadline }) {
  /** @type {number} */
  let underWay = -1;
  while (!gone()) {
    const now = await counts(runtime);
    if (now) underWay = now.underWay;
    if (underWay === 0) return "drained";
    if (clock.now() >= deadline) return Math.max(underWay, 0);
    await clock.sleep(DRAIN_LOOK_MS);
  }
  return "gone";
}

/**
 * The line that says why a runner is ended, once its wait is over.
 * @param {object} why
 * @param {string} why.label - the server's label
 * @param {string} why.name - the runner's name
 * @param {number} why.begun - its runs begun
 * @param {"drained" | number} why.drained - the wait's outcome ({@link drain})
 * @param {boolean} why.unasked - it was found retiring without being asked
 * @param {number} why.idleMs - > 0: it is ended for being idle that long
 * @param {number} why.waitedMs - the wait's deadline, from the ask
 */
export function retirementLine({ label, name, begun, drained, unasked, idleMs, waitedMs }) {
  if (idleMs > 0 && drained === "drained")
    return `${label}: ${name} is ended: no run for ${idleMs / 1000} s (the host asks for it again when runs need it).`;
  if (drained !== "drained")
    return `${label}: ${name} is retired after ${begun} runs although ${drained} ${drained === 1 ? "run is" : "runs are"} still counted under way ${waitedMs / 1000} s after it was asked (past the run timeout: runs the host already gave up on); a fresh one takes its place.`;
  if (unasked)
    return `${label}: ${name} was retiring without the supervisor asking; after ${begun} runs, none under way, a fresh one takes its place.`;
  return `${label}: ${name} is retired after ${begun} runs, none under way (a fresh process gives back the memory runs leave in workerd); a fresh one takes its place.`;
}

/**
 * The runner to retire next after its runs (runner-retirement.mjs's choice among the slots'
 * live runners, from the watchdog's latest probe of each: no request of its own), or undefined.
 * @template {RetiringSlot} S
 * @param {readonly S[]} slots - every slot of the pool
 * @param {number} maxRuns - `SANDBOX_RUNNER_MAX_RUNS` (0: never)
 * @returns {{ slot: S, runtime: Runtime, begun: number, unasked: boolean } | undefined}
 */
export function dueRetirement(slots, maxRuns) {
  const next = nextRetirement(
    slots.flatMap((slot) =>
      slot.runtime && !slot.runtime.killedBecause && !slot.retiring
        ? [
            {
              index: slot.index,
              retired: slot.retired,
              counts: countsOf(slot.runtime.lastHeaders),
              slot,
              runtime: slot.runtime,
            },
          ]
        : [],
    ),
    maxRuns,
    slots.length,
  );
  if (!next) return undefined;
  const { slot, runtime } = next.candidate;
  return { slot, runtime, begun: next.begun, unasked: next.unasked };
}

/**
 * @typedef {object} SlotRetirement
 * @property {(slot: RetiringSlot, runtime: Runtime, begun: number, unasked?: boolean, idleMs?: number) => Promise<void>} retire -
 *   retires the slot's runner; `unasked`: it is retiring already; `idleMs` > 0: it is ended for
 *   being idle that long, and its slot gets its doorbell back instead of a fresh runner
 * @property {(slot: RetiringSlot, runtime: Runtime, begun: number) => void} retireInTurn - an
 *   asked retirement, unless one is under way (one at a time, so runs always have a runner)
 */

/**
 * The pool's retirements, with its clock and the requests to its runners injected.
 * @param {object} options
 * @param {() => boolean} options.stopping - the server stops: nothing more is retired or started
 * @param {(runtime: Runtime) => Promise<boolean>} options.askToRetire - POST /retire; agreed?
 * @param {(runtime: Runtime) => Promise<RunnerCounts | null>} options.counts - its counts now
 * @param {(slot: RetiringSlot) => Promise<void>} options.restart - starts the slot's next runner
 * @param {(slot: RetiringSlot) => Promise<void>} options.openDoorbell - gives the slot its doorbell
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {number} options.runTimeoutMs - the runs' timeout (the drain deadline's base)
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @returns {SlotRetirement}
 */
export function createSlotRetirement({
  stopping,
  askToRetire,
  counts,
  restart,
  openDoorbell,
  clock,
  runTimeoutMs,
  log,
  label,
}) {
  /** @type {SlotRetirement["retire"]} */
  const retire = async (slot, runtime, begun, unasked = false, idleMs = 0) => {
    const gone = () => stopping() || slot.runtime !== runtime || !!runtime.killedBecause;
    slot.retiring = true;
    try {
      // Unasked, it is retiring already; asked, it must agree (a runner that does not answer
      // is the watchdog's affair).
      if (!unasked && !(await askToRetire(runtime))) return;
      const waitedMs = runTimeoutMs + DRAIN_MARGIN_MS;
      const drained = await drain({
        runtime,
        gone,
        counts,
        clock,
        deadline: clock.now() + waitedMs,
      });
      if (drained === "gone") return;
      // The answers of its last runs may still be on their way to the host.
      if (drained === "drained") await clock.sleep(ANSWER_GRACE_MS);
      if (gone()) return;
      log(retirementLine({ label, name: runtime.name, begun, drained, unasked, idleMs, waitedMs }));
      // Off the slot first: its exit is not a failure to replace.
      slot.runtime = null;
      slot.retired++;
      await runtime.kill(idleMs > 0 ? "it was idle" : "it was retired");
      // An idle runner's slot waits for the host to ask again; a retired one gets a fresh runner.
      if (idleMs === 0) await restart(slot);
    } finally {
      slot.retiring = false;
    }
    if (idleMs > 0) await openDoorbell(slot);
  };

  /** @type {Promise<void> | null} the asked retirement under way (one at a time) */
  let asked = null;
  return {
    retire,
    retireInTurn: (slot, runtime, begun) => {
      if (asked) return;
      asked = retire(slot, runtime, begun).finally(() => {
        asked = null;
      });
    },
  };
}
