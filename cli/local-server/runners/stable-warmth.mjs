/**
 * Warm runners (docs/local-runtime.md, "Runners on demand"): with the shared-worker executor a
 * fresh runner's first run used to load the engine first (it asked the host for the code, then
 * compiled and started the WebAssembly): 0.8–2.3 s on a loaded 2-core machine, and the warm
 * spare and every prepared replacement are fresh runners, so another client's searches waited
 * that long exactly when one client's stalls held every other runner (e2e fair-share).
 *
 * The host has the engine's code, the supervisor starts the runners; so the supervisor copies
 * the code from a runner that holds it (each runner's `/health` lists the hashes of the stable
 * code it holds) to every runner it starts, and to those running that lack it (src/runner.ts,
 * `GET /stable` and `POST /warm`). A runner is warmed only with code a runner was sent by the
 * host: with the isolate-per-run executor no runner holds any, and nothing is warmed (issue #43:
 * an engine costs a runner memory).
 *
 * The decisions (what to learn, whom to warm) are pure functions here, unit-tested on their own
 * (test/unit/cli/supervisor/stable-warmth.test.ts); {@link createWarmth} carries them out for
 * the runner pool (runner-pool.mjs passes its running runners and the requests that read and
 * send code), with the pool's clock (test/unit/cli/supervisor/runner-pool-warm.test.ts).
 */

/** The stable code the supervisor keeps at most (the host uses one per executor setting). */
export const MAX_KNOWN_CODES = 2;

/**
 * The hashes in a runner's `/health` header `x-runner-stable` (src/runner.ts), or none.
 * @param {import("node:http").IncomingHttpHeaders | undefined} headers
 * @returns {string[]}
 */
export function stableHashesOf(headers) {
  const value = headers?.["x-runner-stable"];
  if (typeof value !== "string" || value === "") return [];
  return value.split(",").filter((hash) => /^[0-9a-f]{64}$/.test(hash));
}

/**
 * How long a runner may have left its `/health` probes (every 500 ms) unanswered and still be
 * read from. A runner whose thread a program holds answers no read either: one read started just
 * as one client's stall took runner 1 (e2e fair-share, load 17) hung until that runner was ended
 * 10 s later, and no runner was warmed before the round of stalls it was meant for.
 */
export const LEARN_SILENT_MS = 2_000;

/**
 * @typedef {{ killedBecause: string | undefined, isRunning: () => boolean, lastHeaders: import("node:http").IncomingHttpHeaders | undefined, lastAnswer?: number }} WarmableRuntime
 */

/**
 * A hash a running runner holds that the supervisor does not know yet, and that runner: the
 * code to copy from it. Null when there is none, or the supervisor keeps its most already. Not
 * from a runner silent for {@link LEARN_SILENT_MS} at `now` (its thread may be held).
 * @param {WarmableRuntime[]} runtimes - the running runners
 * @param {ReadonlySet<string>} known - hashes whose code the supervisor has, or is fetching
 * @param {number} [now] - the clock now (without it, silence is not looked at)
 * @returns {{ runtime: WarmableRuntime, hash: string } | null}
 */
export function codeToLearn(runtimes, known, now) {
  if (known.size >= MAX_KNOWN_CODES) return null;
  for (const runtime of runtimes) {
    if (runtime.killedBecause !== undefined || !runtime.isRunning()) continue;
    if (now !== undefined && now - (runtime.lastAnswer ?? now) >= LEARN_SILENT_MS) continue;
    for (const hash of stableHashesOf(runtime.lastHeaders))
      if (!known.has(hash)) return { runtime, hash };
  }
  return null;
}

/**
 * The known hashes `runtime` should be warmed with: those it does not report holding and has not
 * been sent (`sent`: what was sent to it, warmed or on its way). None for a runner ended or
 * being ended.
 * @param {WarmableRuntime} runtime
 * @param {Iterable<string>} known - hashes whose code the supervisor has
 * @param {ReadonlySet<string> | undefined} sent
 * @returns {string[]}
 */
export function hashesToWarm(runtime, known, sent) {
  if (runtime.killedBecause !== undefined || !runtime.isRunning()) return [];
  const held = new Set(stableHashesOf(runtime.lastHeaders));
  return [...known].filter((hash) => !held.has(hash) && !sent?.has(hash));
}

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {object} Warmth
 * @property {(runtime: Runtime) => void} warmRuntime - sends `runtime` the known stable code it
 *   lacks, to load now (a runner just started or prepared)
 * @property {() => void} warmStep - one look: learns stable code a running runner holds, and
 *   warms every running runner lacking what is known
 * @property {(hash: string, code: Buffer, boundMs: number) => Promise<void>} teach - knows
 *   `code` under `hash` from the host (host-code-request.mjs), warms every running runner with it
 *   and resolves once they have loaded it, or `boundMs` has passed
 */

/**
 * The pool's copying of stable code between runners. Nothing is read or sent without both
 * `readCode` and `warm`, nor once `stopping()`.
 * @param {object} options
 * @param {((runtime: Runtime, hash: string) => Promise<Buffer | null>) | undefined} options.readCode -
 *   the stable code a runner holds under `hash` (stable-code-request.mjs)
 * @param {((runtime: Runtime, code: Buffer) => Promise<boolean>) | undefined} options.warm -
 *   sends a runner that code to load now; whether it did
 * @param {() => Runtime[]} options.running - the runners to learn from and warm now: the
 *   pool's serving runners and prepared replacements
 * @param {() => boolean} options.stopping - the server is stopping
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @param {import("../clock.mjs").Clock} options.clock
 * @returns {Warmth}
 */
export function createWarmth({ readCode, warm, running, stopping, log, label, clock }) {
  /** Stable code copied from a runner, by hash (null: being read). */
  /** @type {Map<string, Buffer | null>} */
  const known = new Map();
  /** What each runner was sent to warm with (warmed, or on its way). */
  /** @type {WeakMap<Runtime, Set<string>>} */
  const sent = new WeakMap();

  /**
   * Sends `runtime` what it lacks; resolves when those loads end.
   * @param {Runtime} runtime
   * @returns {Promise<unknown>}
   */
  const warmNow = (runtime) => {
    if (!warm || stopping()) return Promise.resolve();
    /** @type {Promise<unknown>[]} */
    const loads = [];
    const ready = [...known].flatMap(([hash, code]) => (code ? [hash] : []));
    for (const hash of hashesToWarm(runtime, ready, sent.get(runtime))) {
      const code = /** @type {Buffer} */ (known.get(hash));
      const mine = sent.get(runtime) ?? new Set();
      mine.add(hash);
      sent.set(runtime, mine);
      const asked = clock.now();
      loads.push(
        warm(runtime, code).then((ok) => {
          if (ok)
            log(
              `${label}: ${runtime.name} (workerd pid ${runtime.pid}) loaded the shared worker's engine ahead of its runs, in ${clock.now() - asked} ms.`,
            );
        }),
      );
    }
    return Promise.all(loads);
  };

  /** @type {Warmth["warmRuntime"]} */
  const warmRuntime = (runtime) => void warmNow(runtime);

  /** @type {Warmth["teach"]} */
  const teach = async (hash, code, boundMs) => {
    if (!warm || stopping()) return;
    // The host's word replaces whatever was known: a launch has one executor setting.
    if (!known.has(hash) && known.size >= MAX_KNOWN_CODES) known.clear();
    known.set(hash, code);
    const loads = Promise.all(running().map(warmNow));
    await Promise.race([loads, clock.sleep(boundMs)]);
  };

  /** @type {Warmth["warmStep"]} */
  const warmStep = () => {
    if (!readCode || !warm || stopping()) return;
    const runtimes = running();
    const learn = codeToLearn(runtimes, new Set(known.keys()), clock.now());
    if (learn) {
      known.set(learn.hash, null);
      void readCode(/** @type {Runtime} */ (learn.runtime), learn.hash).then((code) => {
        if (code) known.set(learn.hash, code);
        else known.delete(learn.hash);
        if (code) warmStep();
      });
    }
    for (const runtime of runtimes) warmRuntime(runtime);
  };

  return { warmRuntime, warmStep, teach };
}
