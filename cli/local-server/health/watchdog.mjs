/**
 * The watchdog of one runtime: is it still making progress? Progress is a `/health` answer: one
 * probe at a time, and the bound runs from the last answer (or the watch's start), so a machine
 * that is merely busy (a probe answered in 3 s) is never taken for a stuck runtime, and a
 * runtime that stopped answering is ended the bound after its last answer, not up to a probe's
 * pause later. Used for the host runtime (host-pair.mjs) and for each sandbox runner
 * (runners/runner-pool.mjs), with their own bounds; the probe is health-probe.mjs's.
 *
 * Why from the last answer (issue #40, e2e fair-share): each probe was allowed the whole bound
 * from when it was sent, so a runner held by a program was ended up to a pause (500 ms, more on a
 * loaded machine) past the bound; a stall of one round then outlived the 11 s to the next round
 * and held its runner into it, and the next round's last stall took the spare.
 */

/** Pause between two probes of one runtime. */
export const PROBE_EVERY_MS = 500;
/**
 * The least time a probe is given, however late it is sent: the supervisor's own pause may run
 * late on a loaded machine, and a probe sent just before the bound ends is not a fair question.
 */
export const PROBE_FLOOR_MS = 1_000;
/**
 * How long a probe that failed at once waits for word that the runtime's process exited, which
 * comes through the runtime host after it has disposed of the runtime's Miniflare.
 */
export const EXIT_NEWS_MS = 2_000;

/**
 * How much sooner than its timeout a probe that gave up may have ended and still count as timed
 * out rather than failed at once: a timer fires at most a few milliseconds before another clock
 * says its time passed, a refused connection fails in about one.
 */
export const TIMER_SLACK_MS = 50;

/**
 * @typedef {object} Watched
 * @property {string} name
 * @property {() => boolean} isRunning
 * @property {string | undefined} killedBecause
 * @property {Promise<void>} exited
 * @property {number} lastAnswer - set here when a probe is answered
 * @property {import("node:http").IncomingHttpHeaders | undefined} lastHeaders - set here too
 */

/**
 * Probes `runtime` until it ends, is killed or the server stops, and calls `onStuck` (once, then
 * returns) when it shows no progress: no answer within `stuckMs` of its last one (or of the
 * watch's start; a probe sent late still gets {@link PROBE_FLOOR_MS}), or a probe that failed at
 * once (connection refused or reset, an error answer) while the runtime still runs
 * after {@link EXIT_NEWS_MS}. A probe that failed at once is most often a runtime whose process
 * just died: its exit comes a moment later and names the cause ("it exited"), so it is given
 * that moment (e2e runner-kill saw the probe win).
 * @param {Watched} runtime
 * @param {object} options
 * @param {number} options.stuckMs - the bound: how long it may go without answering
 * @param {(runtime: Watched, timeoutMs: number) => Promise<{ headers: import("node:http").IncomingHttpHeaders } | null>} options.probe
 * @param {(reason: string) => void} options.onStuck
 * @param {() => boolean} options.stopping
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {number} [options.everyMs] - default {@link PROBE_EVERY_MS}
 * @param {number} [options.since] - when the bound starts (default: now): a runner started on
 *   demand counts from when it was asked for, not from when it listens (runner-pool.mjs)
 * @param {() => boolean} [options.sameSocket] - whether the runtime's socket file is still its
 *   own (socket-identity.mjs), asked before each probe: the probes' kept connections reach the
 *   runtime however its file has gone, so they cannot tell
 * @returns {Promise<void>}
 */
export async function watch(
  runtime,
  { stuckMs, probe, onStuck, stopping, clock, everyMs = PROBE_EVERY_MS, since, sameSocket },
) {
  const watching = () => !stopping() && runtime.isRunning() && !runtime.killedBecause;
  // Its own record of the last answer (the runtime's may be older: a standby ready long ago).
  let answered = since ?? clock.now();
  while (watching()) {
    await clock.sleep(everyMs);
    if (!watching()) return;
    if (sameSocket && !sameSocket())
      return onStuck(
        "its socket file was removed or replaced by another process (nothing new could reach it there)",
      );
    const asked = clock.now();
    const timeoutMs = Math.max(answered + stuckMs - asked, PROBE_FLOOR_MS);
    const answer = await probe(runtime, timeoutMs);
    if (answer) {
      answered = clock.now();
      runtime.lastAnswer = answered;
      runtime.lastHeaders = answer.headers;
      continue;
    }
    // A timeout is not "at once": the probe's timer may fire a millisecond before the clock says
    // timeoutMs passed (setTimeout runs on its own clock, Date.now() rounds down), and taken for an
    // early failure the runtime then waited EXIT_NEWS_MS more (e2e fair-share in CI, 2026-12-07:
    // one stall a round ended 11.6–12.1 s after it began instead of 9.5–10 s, into the next round).
    const early = clock.now() - asked < timeoutMs - TIMER_SLACK_MS;
    if (early) await Promise.race([runtime.exited, clock.sleep(EXIT_NEWS_MS)]);
    if (watching())
      return onStuck(
        early
          ? "its /health probe failed at once (connection refused or reset, or an error answer)"
          : `it stopped answering (no /health answer for ${stuckMs / 1000} s)`,
      );
  }
}
