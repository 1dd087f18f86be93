/**
 * The host runtime and, when asked for, its warm standby (docs/local-runtime.md): the active host
 * serves MCP, the status page and the Durable Objects. The active host is replaced when it exits,
 * reports a crash, or shows no progress for {@link HOST_STUCK_MS}: the requests it had in flight
 * are cut off with a clear error, and a new host takes its place. By default that new host starts
 * then (a few seconds, during which requests wait for it as they do for the first host): a warm
 * standby is a second host runtime (~155 MB resident with Cloudflare's spec) kept only to make
 * that switch near-instant. With `HOST_STANDBY=warm` (src/app/config/launcher-settings.ts) one stands
 * beside the active host, takes its place, and a new standby starts.
 *
 * Both runtimes use the same local data folder. workerd opens a Durable Object's SQLite file
 * when the object is first used, and only the active host gets requests (the standby only
 * answers /health, which uses no Durable Object); the standby is promoted only after every
 * process of the old host is gone. But each runtime opens every namespace's alarms
 * (`metadata.sqlite`) as it starts, and runs the alarms set by then: a standby runs a task's
 * pending heartbeat or expiry beside the active host, in the task's own files, and knows no
 * alarm set after its start (docs/local-runtime.md, "Shared local data"). The standby starts only
 * once the active host serves: two runtimes starting at once on a new folder crash one with
 * SQLITE_BUSY.
 *
 * What the front asks of it is {@link HostPair.target}: the runtime to serve a request now. While
 * the first host starts, a request waits for it (at most {@link START_WAIT_MS}), and is then
 * answered "starting", never "stopping": a script that waits for the port to open and sends its
 * first call at once must not be told the server is going away.
 */

/**
 * No sign of progress from the host for this long means it is stuck. The host runs only bounded
 * host work (routing, checks, Durable Object calls, redaction of answers): on a loaded 2-core
 * machine its `/health` was seen to take up to ~3 s; ten times that is still a clear failure.
 */
export const HOST_STUCK_MS = 30_000;
/**
 * How long a request that came before the first host was ready waits for it. Starting takes
 * 2–5 s on an idle machine and was seen past 20 s on a loaded one compiling a large spec; past
 * this a client is better told to try again than left hanging.
 */
export const START_WAIT_MS = 60_000;
/** How many times a replacement host is started when no standby is ready. */
const LAUNCH_TRIES = 2;

/** What {@link HostPair.target} answers while the first host is still starting. */
export const STARTING = Symbol("starting");

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 */

/**
 * @typedef {object} HostPair
 * @property {() => Promise<Runtime | null>} start - starts the first host and, once it serves,
 *   its standby; resolves to the first host, or null when none could be started
 * @property {() => Promise<Runtime | null | typeof STARTING>} target - the runtime to serve a
 *   request now: waits while the first host starts or a replacement is under way;
 *   {@link STARTING} when no host is ready within {@link START_WAIT_MS}; null only when stopping
 * @property {(runtime: Runtime, reason: string) => Promise<void>} replace - ends `runtime` if it
 *   is the active host, and puts the standby (or a new host) in its place
 * @property {() => Runtime | null} active
 * @property {() => void} stop - from now on, nothing is started or replaced
 */

/**
 * Creates the pair. Nothing starts before {@link HostPair.start}.
 * @param {object} options
 * @param {(onCrash: (runtime: Runtime) => void) => Promise<Runtime | null>} options.launch -
 *   starts a host runtime and resolves to it once it answers (null: it did not start, and was
 *   ended); `onCrash` is to be called when the runtime reports a crash
 * @param {(runtime: Runtime, onStuck: (reason: string) => void) => void} options.watch - starts
 *   its watchdog (health/watchdog.mjs, with {@link HOST_STUCK_MS})
 * @param {(runtime: Runtime, reason: string) => void} options.cutOff - ends the requests in
 *   flight on a replaced host with a clear error (the front)
 * @param {(runtime: Runtime) => void} options.serving - called when a runtime becomes the active
 *   host (its output is shown from then on)
 * @param {(code: number) => void} options.fail - no host could be started: stop the server
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @param {import("./clock.mjs").Clock} options.clock
 * @param {number} [options.startWaitMs] - default {@link START_WAIT_MS}
 * @param {boolean} [options.warmStandby] - keep a warm standby (default true here; the
 *   launcher's default is none: `HOST_STANDBY` in src/app/config/launcher-settings.ts)
 * @returns {HostPair}
 */
export function createHostPair({
  launch,
  watch,
  cutOff,
  serving,
  fail,
  log,
  label,
  clock,
  startWaitMs = START_WAIT_MS,
  warmStandby = true,
}) {
  // An object, not a variable: loops wait on it across awaits (the linter reads a plain
  // variable as never changing there).
  const state = { stopping: false };
  /** @type {Runtime | null} */
  let active = null;
  /** @type {Promise<Runtime | null> | null} */
  let standby = null;
  /** @type {Promise<Runtime | null> | null} the first start or a promotion under way */
  let promoting = null;
  /** Whether the first start has ended (well or not). */
  let started = false;

  /** Starts a host runtime and watches its exit (only the active host's exit matters). */
  const launchHost = async () => {
    const runtime = await launch((crashed) => void replace(crashed, "it crashed"));
    if (runtime)
      void runtime.exited.then(() => {
        if (runtime === active) void replace(runtime, "it exited");
      });
    return runtime;
  };

  /** Starts the standby, when one is kept. */
  const startStandby = () => (warmStandby ? launchHost() : null);

  /** Makes `runtime` the active host and watches it. @param {Runtime} runtime */
  const serve = (runtime) => {
    active = runtime;
    serving(runtime);
    watch(runtime, (reason) => void replace(runtime, reason));
  };

  /** @type {HostPair["replace"]} */
  const replace = async (runtime, reason) => {
    if (state.stopping || runtime !== active) return;
    active = null;
    runtime.killedBecause = reason;
    log(`${label}: ${runtime.name} is replaced because ${reason}.`);
    promoting = (async () => {
      const began = clock.now();
      await runtime.kill(reason);
      cutOff(runtime, reason);
      let next = await standby;
      standby = null;
      // A standby that ended meanwhile (its runtime host process died with the active one).
      if (next && !next.isRunning()) next = null;
      // No ready standby (it failed, or the crash came first): start one now.
      for (let tries = 0; !next && tries < LAUNCH_TRIES && !state.stopping; tries++)
        next = await launchHost();
      if (state.stopping) return null;
      if (!next) {
        log(`${label}: no runtime could be started; stopping.`);
        fail(1);
        return null;
      }
      serve(next);
      log(
        `${label}: ${next.name} (workerd pid ${next.pid}) serves now (${clock.now() - began} ms after the switch).`,
      );
      standby = startStandby();
      return next;
    })();
    await promoting;
    promoting = null;
  };

  return {
    active: () => active,
    stop: () => {
      state.stopping = true;
    },
    replace,
    start: async () => {
      promoting = launchHost();
      const first = await promoting;
      promoting = null;
      started = true;
      if (!first || state.stopping) return null;
      serve(first);
      standby = startStandby();
      return first;
    },
    target: async () => {
      const waitUntil = clock.now() + startWaitMs;
      while (!state.stopping) {
        if (active) return active;
        if (!started) {
          // Before the first host is ready: wait for it, bounded.
          const left = waitUntil - clock.now();
          if (left <= 0) return STARTING;
          await Promise.race([promoting ?? clock.sleep(50), clock.sleep(Math.min(left, 1_000))]);
          continue;
        }
        if (!promoting) return null;
        // A replacement under way: with no warm standby it starts a host now, which takes as
        // long as a first start. Bounded the same way, so no request hangs on it.
        const left = waitUntil - clock.now();
        if (left <= 0) return STARTING;
        await Promise.race([promoting, clock.sleep(Math.min(left, 1_000))]);
      }
      return null;
    },
  };
}
