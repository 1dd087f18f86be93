/**
 * When a kept runner that has grown is retired while idle (issue #43, memory that follows the
 * work). A burst of searches takes a runner's workerd from ~62 MiB to 100–145 MiB, and its
 * allocator (tcmalloc) keeps what it once took: the runner kept while idle (the pool's `keep`)
 * then held that for as long as the server sat idle, since the runners beyond it end when idle
 * and the retirement after `SANDBOX_RUNNER_MAX_RUNS` runs never comes without runs. A fresh
 * process gives it back; retired the usual way (runner-pool.mjs `retire`: asked, drained, a
 * fresh one on the same port), no run is cut off, and a run that comes meanwhile goes to the
 * fresh runner or, while none serves, waits for it as for any retirement.
 *
 * A runner is retired here when all of these hold:
 * - it has begun a run (a fresh runner that served nothing is never retired for its size: no
 *   loop of retirements, whatever a fresh runner weighs);
 * - it has begun no run and had none under way for {@link GROWN_IDLE_MS};
 * - its resident memory is {@link GROWN_BY_BYTES} or more above its weight before its first run
 *   (the largest of its looks while it had begun none, the warm engine included; unknown where
 *   the system does not say, and then it is never retired here).
 *
 * The pool asks this only with two slots or more and a retirement setting other than 0
 * (`SANDBOX_RUNNER_MAX_RUNS=0` never retires), one asked retirement at a time.
 *
 * The cost: starting a runner (~1.5 s of CPU, off any run's path, once per quiet spell after
 * work), and a run right after it finds a runner that has not run a program yet.
 */
import { countsOf } from "./runner-retirement.mjs";

/**
 * How long a kept runner must have begun no run before its size is weighed: as long as a runner
 * beyond the kept ones may idle before it ends (runner-pool.mjs `IDLE_END_MS`).
 */
export const GROWN_IDLE_MS = 30_000;

/**
 * How far above its first size a runner must be to be retired for it: above what a runner
 * that ran a few programs holds (its modules' code, ~5–10 MiB) and below what a burst leaves
 * (+38–82 MiB with Cloudflare's spec, bench/README.md). The shared worker's engine (~37 MiB)
 * that a fresh runner is warmed with before its first run is part of its baseline, so a quiet
 * client's occasional small run does not retire each fresh runner in turn.
 */
export const GROWN_BY_BYTES = 32 * 1024 * 1024;

/**
 * @typedef {object} GrownLook
 * @property {{ begun: number, underWay: number } | null} counts - from the watchdog's latest
 *   probe (null: none yet)
 * @property {number | undefined} rss - its resident bytes now (undefined: unknown)
 */

/**
 * Follows each kept runner (by its runtime object) and says which one is due, one look at a time.
 * @template R
 * @param {object} [limits]
 * @param {number} [limits.idleMs] - default {@link GROWN_IDLE_MS}
 * @param {number} [limits.grownBy] - default {@link GROWN_BY_BYTES}
 * @returns {(runners: { runtime: R, look: GrownLook }[], now: number) => R | null} a look at
 *   the kept runners that serve now (none retiring or starting): the first one due, or null
 */
export function grownIdleWatch({ idleMs = GROWN_IDLE_MS, grownBy = GROWN_BY_BYTES } = {}) {
  /** @type {WeakMap<object, { firstRss: number | undefined, seenBegun: number, idleSince: number }>} */
  const seen = new WeakMap();
  return (runners, now) => {
    for (const { runtime, look } of runners) {
      const key = /** @type {object} */ (runtime);
      let known = seen.get(key);
      if (!known) {
        known = { firstRss: look.rss, seenBegun: look.counts?.begun ?? 0, idleSince: now };
        seen.set(key, known);
        continue;
      }
      known.firstRss ??= look.rss;
      const { counts, rss } = look;
      if (!counts) continue;
      // Until it begins its first run, what it grows to is its own weight, not past work: the
      // supervisor warms a fresh runner with the shared worker's engine (~37 MiB) after the
      // first look. Measured from there, one tiny run every 30 s retired the kept runner each
      // time (a start and a warm, ~1.5 s of CPU, per poll of a quiet client), endlessly.
      if (counts.begun === 0 && rss !== undefined)
        known.firstRss = Math.max(known.firstRss ?? rss, rss);
      if (counts.underWay > 0 || counts.begun !== known.seenBegun) {
        known.seenBegun = counts.begun;
        known.idleSince = now;
        continue;
      }
      if (
        counts.begun > 0 &&
        now - known.idleSince >= idleMs &&
        rss !== undefined &&
        known.firstRss !== undefined &&
        rss - known.firstRss >= grownBy
      )
        return runtime;
    }
    return null;
  };
}

/**
 * @typedef {object} GrownSlot
 * @property {number} index
 * @property {{ killedBecause: string | undefined, lastHeaders: import("node:http").IncomingHttpHeaders | undefined } | null} runtime
 * @property {boolean} retiring
 * @property {boolean} starting
 */

/**
 * The pool's side of it (runner-pool.mjs's retire loop): follows the kept slots' runners, one
 * look at a time, and says which one to retire now for its size, if any. Every look is taken
 * (the watch learns each runner's baseline and idle time), a due one is named only with two
 * slots or more and `maxRuns` other than 0, like the retirement after runs.
 * @template {GrownSlot} S
 * @param {object} options
 * @param {(slot: S) => boolean} options.kept - whether the slot's runner is one kept running
 * @param {(runtime: NonNullable<S["runtime"]>) => number | undefined} options.rssOf - resident bytes
 * @param {number} options.maxRuns - the retirement setting (0: never retire)
 * @param {ReturnType<typeof grownIdleWatch>} [options.watch] - default a fresh {@link grownIdleWatch}
 * @returns {(slots: readonly S[], now: number) => { slot: S, runtime: NonNullable<S["runtime"]>, begun: number } | null}
 */
export function grownIdleSlots({ kept, rssOf, maxRuns, watch = grownIdleWatch() }) {
  return (slots, now) => {
    const grown = watch(
      slots.flatMap((s) =>
        kept(s) && s.runtime && !s.runtime.killedBecause && !s.retiring && !s.starting
          ? [
              {
                runtime: s.runtime,
                look: { counts: countsOf(s.runtime.lastHeaders), rss: rssOf(s.runtime) },
              },
            ]
          : [],
      ),
      now,
    );
    if (!grown || slots.length < 2 || maxRuns <= 0) return null;
    const slot = slots.find((s) => s.runtime === grown);
    const runtime = slot?.runtime;
    if (!slot || !runtime) return null;
    return { slot, runtime, begun: countsOf(runtime.lastHeaders)?.begun ?? 0 };
  };
}

/**
 * A process's resident bytes from `/proc/<pid>/status` (Linux), else undefined.
 * @param {number} pid
 * @param {(path: string) => string} readText - e.g. `(p) => readFileSync(p, "utf8")`
 * @returns {number | undefined}
 */
export function residentBytes(pid, readText) {
  if (!(pid > 0)) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readText(`/proc/${pid}/status`));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
