/**
 * The `npm start` supervisor: a small local cluster behind one port (docs/local-runtime.md).
 *
 * - A Node front (front.mjs) on the public port reads each request body completely (size and
 *   time limits) and passes it to the active host runtime.
 * - The host runtime serves MCP, the status page and the Durable Objects; a warm standby stands
 *   beside it. It runs only bounded host work, so it is replaced only when it gives no sign of
 *   progress for {@link HOST_STUCK_MS}, exits or reports a crash.
 * - Sandbox runners (one per core, at most 4, plus one by default) run every program:
 *   the host sends each run to the least busy one over Workers RPC. A program that blocks its
 *   runner's thread blocks only that runner; a runner giving no sign of progress for
 *   {@link RUNNER_STUCK_MS} is replaced on its own, its runs in flight fail at once with a clear
 *   error on the host, and the others go on.
 *
 * Progress is a `/health` answer: one probe at a time per runtime, each allowed the whole bound,
 * so a machine that is merely busy (a probe answered in 3 s) is never taken for a stuck runtime.
 *
 * Both host runtimes use the same local data folder. workerd opens a Durable Object's SQLite
 * file only when the object is first used, and only the active host gets requests (the standby
 * only answers /health, which uses no Durable Object); the standby is promoted only after every
 * process of the old host is gone, so two runtimes never write the same files at once. Runners
 * have no local data.
 */
import { createFront } from "./front.mjs";
import {
  ANSWER_GRACE_MS,
  askToRetire,
  CHECK_EVERY_MS,
  countsOf,
  DEFAULT_MAX_RUNS,
  drained,
  nextRetirement,
} from "./runner-retirement.mjs";
import { createRuntimeHost, probe, waitReady } from "./runtime.mjs";

/**
 * No sign of progress from the host for this long means it is stuck. The host runs only bounded
 * host work (routing, checks, Durable Object calls, redaction of answers): on a loaded 2-core
 * machine its `/health` was seen to take up to ~3 s; ten times that is still a clear failure.
 */
export const HOST_STUCK_MS = 30_000;
/**
 * No sign of progress from a runner for this long means a program holds its thread for good. An
 * honest program's longest stretch without yielding is bounded by its operation budget (20
 * million operations: 0.1–2 s even on a loaded machine); ten seconds is far past that, and far
 * below the 30 s run timeout, so the runs sharing the runner learn of it early.
 */
export const RUNNER_STUCK_MS = 10_000;
/** Pause between two probes of one runtime. */
const PROBE_EVERY_MS = 500;
/**
 * How long a probe that failed at once waits for word that the runtime's process exited, which
 * comes through the runtime host after it has disposed of the runtime's Miniflare.
 */
const EXIT_NEWS_MS = 2_000;
const READY_TIMEOUT_MS = 120_000;
/** A runner that fails this many times in a row within a minute of starting stops the server. */
const RUNNER_FAILURES = 5;

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 * @typedef {import("./runtime-host.mjs").RuntimeMessage} RuntimeMessage
 * @typedef {{ index: number, rpcPort: number, runtime: Runtime | null, failures: number, retired: number }} RunnerSlot
 */

/**
 * What workerd prints when its peers go away under it at shutdown: the host's RPC connections to
 * runners that end at the same moment (`kj::` exceptions, "disconnected", "Network connection
 * lost"), the signal it was sent, and the stack lines after them. Alarming red lines on a normal
 * stop, yet no fault: dropped from the output once a normal stop began, and only then.
 */
export const SHUTDOWN_NOISE =
  /\bkj::|\bkj\/|workerd\/(io|jsg|server|api)\/|Received signal #(1|2|15)\b|Peer disconnected|Network connection lost|\bdisconnected: |^\s*stack:/;

/**
 * Passes output lines on to `log`, without {@link SHUTDOWN_NOISE} and the indented lines (a
 * stack trace) that follow a dropped line. Any other line, an error included, is passed on.
 * @param {(line: string) => void} log
 * @returns {(line: string) => void}
 */
export function withoutShutdownNoise(log) {
  let dropping = false;
  return (line) => {
    if (SHUTDOWN_NOISE.test(line)) {
      dropping = true;
      return;
    }
    if (dropping && /^\s+\S/.test(line)) return;
    dropping = false;
    log(line);
  };
}

/** @param {Runtime} runtime */
const describe = (runtime) => `${runtime.name} (workerd pid ${runtime.pid}, port ${runtime.port})`;

/**
 * Runs the front on `port` and keeps a healthy host runtime and its runners behind it until a
 * stop signal. Never returns; exits the process.
 * @param {object} options
 * @param {number} options.port - the public port
 * @param {(runnerAddresses: string[]) => RuntimeMessage} options.host - the host runtime's
 *   options, given the runners' RPC addresses
 * @param {number} options.runners - how many sandbox runners (0: sandboxes run in the host)
 * @param {(rpcPort: number) => RuntimeMessage} options.runner - a runner's options
 * @param {NodeJS.ProcessEnv} options.env - the runtimes' process environment
 * @param {() => void} options.cleanup - runs before the process exits
 * @param {(line: string) => void} [options.log]
 * @param {string} [options.label] - message prefix ("npm start", "code-mode-mcp")
 * @param {{ maxBodyBytes?: number, bodyTimeoutMs?: number }} [options.front] - the front's limits
 * @param {boolean} [options.logRequests] - a line per request from the front (`LOG_REQUESTS`)
 * @param {number} [options.maxRunsPerRunner] - runs after which a runner is retired and a fresh
 *   one started (runner-retirement.mjs); 0 never. Default {@link DEFAULT_MAX_RUNS}.
 * @returns {Promise<void>}
 */
export async function supervise({
  port,
  host,
  runners,
  runner,
  env,
  cleanup,
  log = console.log,
  label = "npm start",
  front: frontLimits = {},
  logRequests = false,
  maxRunsPerRunner = DEFAULT_MAX_RUNS,
}) {
  let count = 0;
  const state = { stopping: false };
  /** Where the runtimes' output goes (see {@link withoutShutdownNoise}). */
  let output = log;
  const runtimes = createRuntimeHost(env);
  /** @type {Runtime | null} */
  let active = null;
  /** @type {Promise<Runtime | null> | null} */
  let standby = null;
  /** @type {Promise<Runtime | null> | null} */
  let promoting = null;

  // A runner's RPC port is chosen by the OS at its first start (no race with other programs
  // picking ports), then kept: a replacement binds the same port, so the host's binding holds.
  /** @type {RunnerSlot[]} */
  const slots = [];
  for (let index = 1; index <= runners; index++)
    slots.push({ index, rpcPort: 0, runtime: null, failures: 0, retired: 0 });
  /** @type {RuntimeMessage | undefined} */
  let hostMessage;

  const exit = (/** @type {number} */ code) => {
    cleanup();
    process.exit(code);
  };

  /**
   * Watches `runtime` until it exits: one probe at a time, each allowed `stuckMs`; a probe that
   * gets no answer in that time means the runtime is stuck.
   * @param {Runtime} runtime
   * @param {number} stuckMs
   * @param {(reason: string) => void} onStuck
   */
  const watch = async (runtime, stuckMs, onStuck) => {
    while (!state.stopping && runtime.isRunning() && !runtime.killedBecause) {
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      if (state.stopping || !runtime.isRunning() || runtime.killedBecause) return;
      const asked = Date.now();
      const answer = await probe(runtime.port, stuckMs);
      if (answer) {
        runtime.lastAnswer = Date.now();
        runtime.lastHeaders = answer.headers;
        continue;
      }
      // A probe that failed at once (connection refused or reset) is most often a runtime whose
      // process just died: its exit comes through the runtime host a moment later and names the
      // cause ("it exited"), so it is given that moment (e2e runner-kill saw the probe win).
      const early = Date.now() - asked < stuckMs;
      if (early)
        await Promise.race([runtime.exited, new Promise((r) => setTimeout(r, EXIT_NEWS_MS))]);
      if (runtime.isRunning() && !runtime.killedBecause && !state.stopping)
        return onStuck(
          early
            ? "its /health probe failed at once (connection refused or reset, or an error answer)"
            : `it stopped answering (no /health answer for ${stuckMs / 1000} s)`,
        );
    }
  };

  /** Starts a host runtime and resolves to it once ready (null if it failed or stopping). */
  const launchHost = async () => {
    hostMessage ??= host(slots.map((slot) => `127.0.0.1:${slot.rpcPort}`));
    const runtime = runtimes.start({
      name: `runtime ${++count}`,
      message: hostMessage,
      onCrashLine: () => void replace(runtime, "it crashed"),
    });
    void runtime.exited.then(() => {
      if (runtime === active) void replace(runtime, "it exited");
    });
    if (await waitReady(runtime, READY_TIMEOUT_MS)) {
      if (active) log(`${label}: ${describe(runtime)} stands by.`);
      return runtime;
    }
    if (!state.stopping) {
      log(`${label}: ${runtime.name} did not start. Its last output:`);
      for (const line of runtime.recentOutput()) log(line);
    }
    await runtime.kill("it did not start");
    return null;
  };

  /**
   * Starts (or restarts) the runner of `slot` on its RPC port; resolves once it answers.
   * @param {RunnerSlot} slot
   * @returns {Promise<boolean>}
   */
  const launchRunner = async (slot) => {
    const started = Date.now();
    const runtime = runtimes.start({
      name: `runner ${slot.index}`,
      message: runner(slot.rpcPort),
      onCrashLine: () => void replaceRunner(slot, runtime, "it crashed"),
    });
    slot.runtime = runtime;
    void runtime.exited.then(() => {
      if (slot.runtime === runtime) void replaceRunner(slot, runtime, "it exited");
    });
    const ok = await waitReady(runtime, READY_TIMEOUT_MS);
    if (ok && runtime.rpcUrl) slot.rpcPort = Number(new URL(runtime.rpcUrl).port);
    if (!ok) {
      if (!state.stopping) {
        log(`${label}: ${runtime.name} did not start. Its last output:`);
        for (const line of runtime.recentOutput()) log(line);
      }
      return false;
    }
    runtime.showOutput((line) => output(line));
    log(`${label}: ${describe(runtime)} ${slot.failures > 0 ? "serves again" : "is ready"}.`);
    if (Date.now() - started < 60_000) slot.failures = 0;
    void watch(runtime, RUNNER_STUCK_MS, (reason) => void replaceRunner(slot, runtime, reason));
    return true;
  };

  /**
   * Ends a runner and starts the slot's next one (same RPC port, so the host's binding holds).
   * @param {RunnerSlot} slot
   * @param {Runtime} runtime
   * @param {string} reason
   */
  const replaceRunner = async (slot, runtime, reason) => {
    if (state.stopping || slot.runtime !== runtime || runtime.killedBecause) return;
    log(
      `${label}: ${runtime.name} is replaced because ${reason}; its runs in flight end with a clear error, other runners go on.`,
    );
    await runtime.kill(reason);
    if (slot.runtime !== runtime) return;
    slot.runtime = null;
    slot.failures++;
    if (slot.failures >= RUNNER_FAILURES) {
      log(`${label}: runner ${slot.index} failed ${slot.failures} times in a row; stopping.`);
      return stop(1);
    }
    // A runner that keeps failing at start is retried less and less often.
    await new Promise((r) => setTimeout(r, 250 * (slot.failures - 1)));
    if (!state.stopping) await launchRunner(slot);
  };

  /**
   * Retires one runner at a time, the one nextRetirement picks (runner-retirement.mjs: the most
   * past its due runs, or one retiring without being asked), until the server stops.
   */
  const retireRunners = async () => {
    while (!state.stopping) {
      await new Promise((r) => setTimeout(r, CHECK_EVERY_MS));
      // From the watchdog's latest probe of each (every 500 ms): no request of its own.
      const next = nextRetirement(
        slots.flatMap((slot) =>
          slot.runtime && !slot.runtime.killedBecause
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
        maxRunsPerRunner,
        slots.length,
      );
      if (next && !state.stopping)
        await retireRunner(next.candidate.slot, next.candidate.runtime, next.begun, next.unasked);
    }
  };

  /**
   * Asks a runner to begin no more runs, waits until none is under way, then ends it and starts
   * the slot's fresh one (same RPC port). Not a replacement: nothing failed, no run is cut off.
   * @param {RunnerSlot} slot
   * @param {Runtime} runtime
   * @param {number} begun - runs it has begun
   * @param {boolean} [unasked] - it was retiring before the supervisor asked
   */
  const retireRunner = async (slot, runtime, begun, unasked = false) => {
    const gone = () => state.stopping || slot.runtime !== runtime || !!runtime.killedBecause;
    if (!(await askToRetire(runtime.port))) return;
    await drained(runtime.port, gone);
    // The answers of its last runs may still be on their way to the host.
    await new Promise((r) => setTimeout(r, ANSWER_GRACE_MS));
    if (gone()) return;
    log(
      unasked
        ? `${label}: ${runtime.name} was retiring without the supervisor asking (something else on this machine sent it POST /retire); after ${begun} runs, none under way, a fresh one takes its place.`
        : `${label}: ${runtime.name} is retired after ${begun} runs, none under way (a fresh process gives back the memory runs leave in workerd); a fresh one takes its place.`,
    );
    // Off the slot first: its exit is not a failure to replace.
    slot.runtime = null;
    slot.retired++;
    await runtime.kill("it was retired");
    if (!state.stopping) await launchRunner(slot);
  };

  const front = createFront({
    ...frontLimits,
    ...(logRequests ? { logRequest: log } : {}),
    target: async () => {
      while (!state.stopping) {
        if (active) return active;
        if (!promoting) return null;
        await promoting;
      }
      return null;
    },
  });

  /**
   * Ends the host `runtime` (if still active) and puts the standby in its place.
   * @param {Runtime} runtime
   * @param {string} reason - for the log and the clients cut off
   */
  const replace = async (runtime, reason) => {
    if (state.stopping || runtime !== active) return;
    active = null;
    runtime.killedBecause = reason;
    log(`${label}: ${runtime.name} is replaced because ${reason}.`);
    promoting = (async () => {
      const started = Date.now();
      await runtime.kill(reason);
      front.cutOff(runtime, reason);
      let next = await standby;
      standby = null;
      // A standby that ended meanwhile (its runtime host process died with the active one).
      if (next && !next.isRunning()) next = null;
      // No ready standby (it failed, or the crash came first): start one now.
      for (let tries = 0; !next && tries < 2 && !state.stopping; tries++) next = await launchHost();
      if (!next) {
        log(`${label}: no runtime could be started; stopping.`);
        await stop(1);
        return null;
      }
      serve(next);
      log(`${label}: ${describe(next)} serves now (${Date.now() - started} ms after the switch).`);
      standby = launchHost();
      return next;
    })();
    await promoting;
    promoting = null;
  };

  /** Makes `runtime` the active host and watches it. @param {Runtime} runtime */
  const serve = (runtime) => {
    active = runtime;
    runtime.showOutput((line) => output(line));
    void watch(runtime, HOST_STUCK_MS, (reason) => void replace(runtime, reason));
  };

  /** @param {number} code */
  const stop = async (code) => {
    if (state.stopping) return;
    state.stopping = true;
    // A normal stop ends every runtime at once: what they print about their peers going away
    // is not a fault. A stop because something failed keeps every line.
    if (code === 0) output = withoutShutdownNoise(log);
    front.server.close();
    front.server.closeAllConnections();
    // SIGTERM lets the runtime host end its workerd processes; SIGKILL what is left after 3 s.
    await runtimes.stop();
    exit(code);
  };
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]))
    process.on(signal, () => void stop(0));
  // npm does not pass a SIGTERM sent to it alone on to this script: it exits and leaves us
  // re-parented. A changed parent means whoever started us is gone, so stop too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop(0);
  }, 500).unref();

  await new Promise((resolve, reject) => {
    front.server.once("error", reject);
    front.server.listen(port, "127.0.0.1", () => resolve(undefined));
  }).catch((/** @type {NodeJS.ErrnoException} */ error) => {
    console.error(
      `${label}: cannot listen on 127.0.0.1:${port} (${error.code === "EADDRINUSE" ? "another program uses it" : (error.code ?? error.message)}).\n  Fix: stop what uses the port, or choose another: ${label === "npm start" ? "PORT=8788 npm start" : "--port 8788"}`,
    );
    exit(1);
  });

  // Runners first (the host's bindings need their ports), then the host.
  const runnersOk = await Promise.all(slots.map((slot) => launchRunner(slot)));
  if (!runnersOk.every(Boolean)) return stop(1);
  promoting = launchHost();
  const first = await promoting;
  promoting = null;
  if (!first) return stop(1);
  serve(first);
  const pool = runners > 0 ? `${runners} sandbox runner${runners === 1 ? "" : "s"}` : "no runners";
  log(
    `${label}: ready on http://127.0.0.1:${port} (${describe(first)}; a standby is starting; ${pool}).`,
  );
  standby = launchHost();
  if (slots.length > 0) void retireRunners();
}
