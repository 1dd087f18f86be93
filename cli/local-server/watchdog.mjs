/**
 * The watchdog of one runtime: is it still making progress? Progress is a `/health` answer: one
 * probe at a time, each allowed the whole bound, so a machine that is merely busy (a probe
 * answered in 3 s) is never taken for a stuck runtime. Used for the host runtime (host-pair.mjs)
 * and for each sandbox runner (runners/runner-pool.mjs), with their own bounds.
 */

/** Pause between two probes of one runtime. */
export const PROBE_EVERY_MS = 500;
/**
 * How long a probe that failed at once waits for word that the runtime's process exited, which
 * comes through the runtime host after it has disposed of the runtime's Miniflare.
 */
export const EXIT_NEWS_MS = 2_000;

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
 * returns) when it shows no progress: a probe without an answer within `stuckMs`, or one that
 * failed at once (connection refused or reset, an error answer) while the runtime still runs
 * after {@link EXIT_NEWS_MS}. A probe that failed at once is most often a runtime whose process
 * just died: its exit comes a moment later and names the cause ("it exited"), so it is given
 * that moment (e2e runner-kill saw the probe win).
 * @param {Watched} runtime
 * @param {object} options
 * @param {number} options.stuckMs - the bound for one probe
 * @param {(runtime: Watched, timeoutMs: number) => Promise<{ headers: import("node:http").IncomingHttpHeaders } | null>} options.probe
 * @param {(reason: string) => void} options.onStuck
 * @param {() => boolean} options.stopping
 * @param {import("./clock.mjs").Clock} options.clock
 * @param {number} [options.everyMs] - default {@link PROBE_EVERY_MS}
 * @returns {Promise<void>}
 */
export async function watch(
  runtime,
  { stuckMs, probe, onStuck, stopping, clock, everyMs = PROBE_EVERY_MS },
) {
  const watching = () => !stopping() && runtime.isRunning() && !runtime.killedBecause;
  while (watching()) {
    await clock.sleep(everyMs);
    if (!watching()) return;
    const asked = clock.now();
    const answer = await probe(runtime, stuckMs);
    if (answer) {
      runtime.lastAnswer = clock.now();
      runtime.lastHeaders = answer.headers;
      continue;
    }
    const early = clock.now() - asked < stuckMs;
    if (early) await Promise.race([runtime.exited, clock.sleep(EXIT_NEWS_MS)]);
    if (watching())
      return onStuck(
        early
          ? "its /health probe failed at once (connection refused or reset, or an error answer)"
          : `it stopped answering (no /health answer for ${stuckMs / 1000} s)`,
      );
  }
}
