/**
 * Noticing a kept runner that the host stopped using (issue #40, "A runner that a host stops
 * using is noticed (runs begun per runner) and fixed"). Once a host sent no run to a replaced
 * runner for ~7 minutes; that cause was fixed (src/executor/runners/placement/runner-placement.ts,
 * `RUNNER_HELD_MAX_MS`), but the host keeps marks on each runner slot that never expire on their
 * own (src/executor/runners/stale-slot.ts: a slot marked cold while its runner was being
 * replaced, a run whose call never settled), and nothing looked for their effect: the runners
 * beyond the kept ones end when idle, a kept one never.
 *
 * The rule, one look every 2 s (runner-retirement.mjs `CHECK_EVERY_MS`) at the watchdog's latest counts of each runner
 * (its `/health`: runs begun and under way, retiring), no request of its own: a kept runner that
 * serves (not retiring, not starting or being replaced) and has begun no run and had none under
 * way for {@link UNUSED_MS}, while {@link UNUSED_ELSEWHERE_RUNS} runs or more began on the other
 * runners meanwhile, is unused. The host places a run on an idle runner before any other and
 * takes idle runners in turn (runner-placement.ts), so a runner it sees as it is gets a share of
 * any such stream of runs: none of a dozen over half a minute means the host's picture of it is
 * wrong. An idle server (no runs anywhere) or one with a run or two never matches.
 *
 * The fix: the supervisor tells the active host to forget that slot's stale marks (the host's
 * `POST /runners/forget`, src/app/sandbox-loader.ts), and logs one line with what the host
 * found. Not a replacement of the runner: the marks are the host's, and a fresh runner in the
 * same slot inherits them. A runner that is avoided by design (one caller kept to the runners it
 * already holds, runner-placement.ts: the last one stays free for others) has nothing stale, and
 * the host says so; asking again costs one small request a window.
 */
import { countsOf } from "./runner-retirement.mjs";

/**
 * How long a kept runner must have begun no run and had none under way: as long as a runner
 * beyond the kept ones may idle before it ends (idle-runner-end.mjs `IDLE_END_MS`), and far past
 * every rest or lateness mark of the host's (3 s at most) and the time a quiet run still counts
 * as holding its runner (15 s, `RUNNER_HELD_MAX_MS`).
 */
export const UNUSED_MS = 30_000;

/**
 * How many runs must begin on other runners meanwhile: with the host taking idle runners in turn,
 * a runner it sees as idle gets about one run in `runners` of a sequential stream, so a dozen
 * that all went elsewhere (with at most the 5 slots a pool has) is not chance.
 */
export const UNUSED_ELSEWHERE_RUNS = 12;

/**
 * @typedef {object} RunnerLook
 * @property {object} runtime - its runtime (followed by identity: a replacement is a new runner)
 * @property {boolean} candidate - a kept runner that serves now (not retiring, starting, being
 *   replaced or ended)
 * @property {{ begun: number, underWay: number, retiring: boolean } | null} counts - from the
 *   watchdog's latest probe (null: none yet)
 */

/**
 * @typedef {object} Unused
 * @property {object} runtime - the runner found unused
 * @property {number} quietMs - how long it has begun no run and had none under way
 * @property {number} elsewhere - runs begun on the other runners meanwhile
 */

/**
 * Follows every runner by its runtime object, one look at a time, and says which kept runners
 * are unused now (see the module comment). A runner named is followed afresh from that look, so
 * it is named again only after another full window.
 * @param {object} [limits]
 * @param {number} [limits.quietMs] - default {@link UNUSED_MS}
 * @param {number} [limits.elsewhereRuns] - default {@link UNUSED_ELSEWHERE_RUNS}
 * @returns {(runners: readonly RunnerLook[], now: number) => Unused[]}
 */
export function unusedRunnerWatch({
  quietMs = UNUSED_MS,
  elsewhereRuns = UNUSED_ELSEWHERE_RUNS,
} = {}) {
  /**
   * Each runner's runs begun at its last look (for the runs begun since, pool-wide).
   * @type {WeakMap<object, number>}
   */
  const lastBegun = new WeakMap();
  /**
   * Each candidate's quiet spell: since when, and the runs begun elsewhere since then.
   * @type {WeakMap<object, { since: number, elsewhere: number }>}
   */
  const quiet = new WeakMap();
  return (runners, now) => {
    // Runs begun since the last look, per runner and in all. A runner seen for the first time
    // adds nothing: what it began before is not known to fall in anyone's window.
    /** @type {Map<object, number>} */
    const fresh = new Map();
    let total = 0;
    for (const { runtime, counts } of runners) {
      if (!counts) continue;
      const before = lastBegun.get(runtime);
      const added = before === undefined ? 0 : Math.max(0, counts.begun - before);
      lastBegun.set(runtime, counts.begun);
      fresh.set(runtime, added);
      total += added;
    }
    /** @type {Unused[]} */
    const unused = [];
    for (const { runtime, candidate, counts } of runners) {
      if (!candidate || !counts || counts.retiring) {
        // Its spell starts again once it serves again.
        quiet.delete(runtime);
        continue;
      }
      const spell = quiet.get(runtime);
      if (!spell || (fresh.get(runtime) ?? 0) > 0 || counts.underWay > 0) {
        quiet.set(runtime, { since: now, elsewhere: 0 });
        continue;
      }
      spell.elsewhere += total;
      if (now - spell.since >= quietMs && spell.elsewhere >= elsewhereRuns) {
        unused.push({ runtime, quietMs: now - spell.since, elsewhere: spell.elsewhere });
        quiet.set(runtime, { since: now, elsewhere: 0 });
      }
    }
    return unused;
  };
}

/**
 * @typedef {object} WatchedSlot
 * @property {number} index - 1-based, the host's binding order
 * @property {{ killedBecause: string | undefined, lastHeaders: import("node:http").IncomingHttpHeaders | undefined } | null} runtime
 * @property {boolean} retiring
 * @property {boolean} starting
 * @property {boolean} restarting
 * @property {boolean} preparing
 */

/**
 * @typedef {object} Forgotten
 * @property {boolean} cold - the host had the slot marked cold (no runner known to serve)
 * @property {number} runs - stale runs of the slot's the host dropped
 */

/**
 * The pool's side of it: one look at the runner slots ({@link unusedRunnerWatch}), and for each
 * kept runner found unused, the host told to forget the slot's stale marks and one line logged
 * with what the host found. Looks are taken one at a time (a look while the last one's requests
 * are still out is skipped).
 * @template {WatchedSlot} S
 * @param {object} options
 * @param {(slot: S) => boolean} options.kept - whether the slot's runner is one kept running
 * @param {(slot: S, quietMs: number) => Promise<Forgotten | null>} options.forget - asks the
 *   active host to forget the slot's stale marks; null when it did not answer
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @param {ReturnType<typeof unusedRunnerWatch>} [options.watch] - default a fresh one
 * @returns {(slots: readonly S[], now: number) => Promise<void>}
 */
export function unusedRunnerNotice({ kept, forget, log, label, watch = unusedRunnerWatch() }) {
  let looking = false;
  return async (slots, now) => {
    if (looking) return;
    looking = true;
    try {
      const looks = slots.flatMap((slot) =>
        slot.runtime
          ? [
              {
                runtime: slot.runtime,
                candidate:
                  kept(slot) &&
                  !slot.runtime.killedBecause &&
                  !slot.retiring &&
                  !slot.starting &&
                  !slot.restarting &&
                  !slot.preparing,
                counts: countsOf(slot.runtime.lastHeaders),
              },
            ]
          : [],
      );
      for (const found of watch(looks, now)) {
        const slot = slots.find((s) => s.runtime === found.runtime);
        if (!slot) continue;
        const forgotten = await forget(slot, found.quietMs);
        log(
          `${label}: runner ${slot.index} serves but began no run for ${Math.round(found.quietMs / 1000)} s while ${found.elsewhere} began on other runners; ${describe(forgotten)}.`,
        );
      }
    } finally {
      looking = false;
    }
  };
}

/**
 * The log's account of the host's answer.
 * @param {Forgotten | null} forgotten
 */
function describe(forgotten) {
  if (!forgotten) return "the host was told to forget its marks on it but did not answer";
  const marks = [
    ...(forgotten.cold ? ["a mark that it had no runner"] : []),
    ...(forgotten.runs > 0
      ? [`${forgotten.runs} run${forgotten.runs === 1 ? "" : "s"} long gone from it`]
      : []),
  ];
  return marks.length > 0
    ? `the host forgot ${marks.join(" and ")}, and sends it runs again`
    : "the host had nothing stale on it (it may keep it free for other callers)";
}
