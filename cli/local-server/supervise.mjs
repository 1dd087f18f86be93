/**
 * The `npm start` supervisor: a small local cluster behind one port (docs/local-runtime.md).
 *
 * - A Node front (front.mjs) on the public port reads each request body completely (size and
 *   time limits) and passes it to the active host runtime.
 * - The host runtime serves MCP, the status page and the Durable Objects (a warm standby beside it
 *   only with `HOST_STANDBY=warm`). It runs only bounded host work, so it is replaced only when it
 *   gives no sign of progress for {@link HOST_STUCK_MS}, exits or reports a crash.
 * - Sandbox runners (one per core, at most 4, plus one by default) run every program:
 *   the host sends each run to the least busy one over Workers RPC. A program that blocks its
 *   runner's thread blocks only that runner; a runner giving no sign of progress for
 *   {@link RUNNER_STUCK_MS} is replaced on its own, its runs in flight fail at once with a clear
 *   error on the host, and the others go on.
 *
 * Its parts, each deciding one thing with its runtimes and clock given (unit-tested with fakes):
 * the host pair (host-pair.mjs: replace, promote, wait while starting), the runner pool
 * (runners/runner-pool.mjs: replace, retire with a deadline), the watchdog (health/watchdog.mjs:
 * is a runtime making progress) and the clock (clock.mjs). This file wires them to the real
 * runtimes (runtime.mjs; whether one is ready: health/readiness.mjs), the front, the signals and
 * the port.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { systemClock } from "./clock.mjs";
import { createFront } from "./front/front.mjs";
import { probe } from "./health/health-probe.mjs";
import { waitListening, waitReady } from "./health/readiness.mjs";
import { watch } from "./health/watchdog.mjs";
import { sameSocketFile } from "./health/socket-identity.mjs";
import { HOST_STUCK_MS, STARTING, createHostPair } from "./host-pair.mjs";
import { residentBytes } from "./runners/grown-idle-runner.mjs";
import { RUNNER_STUCK_MS, createRunnerPool } from "./runners/runner-pool.mjs";
import { askHostToForget } from "./runners/host-forget-request.mjs";
import {
  CHECK_EVERY_MS,
  DEFAULT_MAX_RUNS,
  askToRetire,
  runnerCounts,
} from "./runners/runner-retirement.mjs";
import { readStableCode, warmWith } from "./runners/stable-code-request.mjs";
import { readHostCode } from "./runners/host-code-request.mjs";
import { warmFirstHost } from "./runners/first-warmth.mjs";
import { unusedRunnerNotice } from "./runners/unused-runner.mjs";
import { runtimeHost, spareRunners } from "./runtime-host.mjs";
import { moveSocketOnto } from "./socket-folder.mjs";
import { withoutEmptySlotNoise, withoutShutdownNoise } from "./workerd-output/noise-filters.mjs";

/** How long a runtime may take to start and answer its first probe. */
const READY_TIMEOUT_MS = 120_000;

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 * @typedef {import("./runtime.mjs").RuntimeMessage} RuntimeMessage
 */

/**
 * Added to a slot's index for the socket of a replacement prepared beside its runner
 * (runners/runner-pool.mjs): a name no slot has.
 */
const ASIDE = 100;
/**
 * The most the first host waits, before it counts as ready, for the kept runner to load the
 * shared worker's engine (~1.5 s on a loaded 2-core machine): past it, the server is ready anyway
 * and the load goes on. The bound covers reading the code from the host too
 * (runners/first-warmth.mjs).
 */
const WARM_FIRST_MS = 8_000;

/**
 * A runner slot's doorbell (runners/runner-pool.mjs): listens on the slot's socket (in the server's
 * private folder) while no runner does, ends every connection at once (the host sees the slot
 * refuse and sends the run elsewhere) and calls `onRing`. Resolves to what closes it (Node
 * removes the socket file then, and the runner binds the name).
 * @param {{ file: string, clear: () => void }} socket
 * @param {() => void} onRing
 * @param {(line: string) => void} log
 * @param {string} label
 * @returns {Promise<() => Promise<void>>}
 */
export function ringOnConnect(socket, onRing, log, label) {
  socket.clear();
  const server = createServer((connection) => {
    connection.destroy();
    onRing();
  });
  return new Promise((resolve) => {
    server.once("error", (error) => {
      // The slot then refuses without asking: it only never grows.
      log(
        `${label}: cannot listen on ${socket.file} (${error.message}); that runner slot stays empty.`,
      );
      resolve(async () => {});
    });
    server.listen(socket.file, () =>
      resolve(() => new Promise((closed) => server.close(() => closed(undefined)))),
    );
  });
}

/** @param {Runtime} runtime */
const describe = (runtime) => `${runtime.name} (workerd pid ${runtime.pid})`;

/**
 * Runs the front on `port` and keeps a healthy host runtime and its runners behind it until a
 * stop signal. Never returns; exits the process.
 * @param {object} options
 * @param {number} options.port - the public port
 * @param {(runnerAddresses: string[], spares: number) => RuntimeMessage} options.host - the host
 *   runtime's options, given the runner slots' RPC addresses and how many of the last are spares
 * @param {number} options.runners - how many sandbox runners at most (0: sandboxes run in the
 *   host); one runs while idle, the others start when runs need them (runners/runner-pool.mjs)
 * @param {(index: number) => RuntimeMessage} options.runner - runner `index`'s options
 * @param {(index: number) => { address: string, file: string, clear: () => void }} options.runnerSocket -
 *   runner `index`'s RPC socket: the address the host connects to, its file (where the slot's
 *   doorbell listens while it has no runner), and the clearing of a stale file
 * @param {string} options.socketFolder - the private folder of every runtime's sockets
 *   (socket-folder.mjs)
 * @param {Record<string, string>} options.env - the runtimes' process environment (runtime-env.mjs)
 * @param {() => void} options.cleanup - runs before the process exits
 * @param {(line: string) => void} [options.log]
 * @param {string} [options.label] - message prefix ("npm start", "code-mode-mcp")
 * @param {() => void} [options.onReady] - called once the first host and runners are ready and
 *   the front serves them (the stdio bridge's cue: no polling of `/health`)
 * @param {{ maxBodyBytes?: number, bodyTimeoutMs?: number, bodyBudgetBytes?: number, maxConnections?: number, apiKey?: string, bridgeSecret?: string, allowedHostnames?: string[] }} [options.front] -
 *   the front's limits, and the host names, key and `--stdio` bridge secret it checks before
 *   reading a body (front.mjs)
 * @param {boolean} [options.logRequests] - a line per request from the front (`LOG_REQUESTS`)
 * @param {boolean} [options.warmStandby] - keep a warm standby host (`HOST_STANDBY=warm`)
 * @param {number} [options.maxRunsPerRunner] - runs after which a runner is retired and a fresh
 *   one started (runner-retirement.mjs); 0 never. Default {@link DEFAULT_MAX_RUNS}.
 * @param {number} [options.runTimeoutMs] - the runs' timeout (`LIMIT_TIMEOUT_MS`): a retiring
 *   runner's runs under way are waited for this long plus a margin (runners/runner-pool.mjs)
 * @param {string} [options.persist] - the local data folder (a slot of kept configurations)
 * @param {import("./workerd-config/runtime-config.mjs").ConfigSources["cache"] & { folder?: string }} [options.configCache] -
 *   workerd configurations kept between launches (config-cache.mjs); without, each launch builds
 * @param {{ runtimes: import("./runtime.mjs").RuntimeHost, host: import("./early-host.mjs").EarlyHost }} [options.early] -
 *   the runtimes already made and the host started beside the launch check (early-host.mjs):
 *   the first host is that one when it is the planned one
 * @returns {Promise<void>}
 */
export async function supervise({
  port,
  host,
  runners,
  runner,
  runnerSocket,
  socketFolder,
  env,
  cleanup,
  log = console.log,
  label = "npm start",
  onReady,
  front: frontLimits = {},
  logRequests = false,
  warmStandby = false,
  maxRunsPerRunner = DEFAULT_MAX_RUNS,
  runTimeoutMs = 30_000,
  persist,
  configCache,
  early,
}) {
  const clock = systemClock;
  let count = 0;
  let stopping = false;
  /** Where the runtimes' output goes (see {@link withoutShutdownNoise}). */
  let output = log;
  const runtimes =
    early?.runtimes ?? runtimeHost({ env, socketFolder, persist, configCache, log, label });
  /** @type {RuntimeMessage | undefined} */
  let hostMessage;

  const exit = (/** @type {number} */ code) => {
    cleanup();
    process.exit(code);
  };
  const fail = (/** @type {number} */ code) => void stop(code);

  /**
   * Starts its watchdog (health/watchdog.mjs).
   * @param {Runtime} runtime
   * @param {number} stuckMs
   * @param {(reason: string) => void} onStuck
   * @param {number} [since] - when its bound starts (default: now)
   */
  const watchOver = (runtime, stuckMs, onStuck, since) =>
    void watch(runtime, {
      stuckMs,
      since,
      onStuck,
      clock,
      stopping: () => stopping,
      probe: (watched, timeoutMs) => probe(/** @type {Runtime} */ (watched).socket, timeoutMs),
      // The probes' kept connections reach it whatever became of its file (socket-identity.mjs).
      sameSocket: sameSocketFile(() => runtime.socket),
    });

  /**
   * Waits for a started runtime to answer (or, without `answered`, only to listen: a runner
   * watched from then, runner-pool.mjs); when it does not, shows its last output and ends it.
   * @param {Runtime} runtime
   * @param {boolean} [answered]
   * @returns {Promise<Runtime | null>}
   */
  const ready = async (runtime, answered = true) => {
    if (await (answered ? waitReady : waitListening)(runtime, READY_TIMEOUT_MS)) return runtime;
    if (!stopping) {
      log(`${label}: ${runtime.name} did not start. Its last output:`);
      for (const line of runtime.recentOutput()) log(line);
    }
    await runtime.kill("it did not start");
    return null;
  };

  /** @type {(up: boolean) => void} */
  let poolStartedWith = () => {};
  /** Whether the pool's kept runners started (the first host waits for it to warm them). */
  const poolUp = new Promise((resolve) => (poolStartedWith = resolve));

  // Memory follows the work (issue #43): one runner while idle, more when the host finds none
  // free, one spare beyond the count while stalling programs hold every runner.
  const keep = Math.min(runners, 1);
  const pool = createRunnerPool({
    count: runners,
    keep,
    spare: spareRunners(runners),
    // With the shared worker (the host hands over its engine's code), the spare runs while idle
    // too, warm: a runner started for a burst of stalls needs its start and the engine's load.
    keepWarmSpare: true,
    doorbell: (slot, onRing) => ringOnConnect(runnerSocket(slot.index), onRing, log, label),
    maxRuns: maxRunsPerRunner,
    runTimeoutMs,
    clock,
    log,
    label,
    fail,
    addressOf: (index) => runnerSocket(index).address,
    launch: async (slot, onCrash, firstAnswer) => {
      // A runner that ended leaves its socket file: its replacement binds the same name.
      runnerSocket(slot.index).clear();
      /** @type {Runtime} */
      const runtime = runtimes.start({
        name: `runner ${slot.index}`,
        message: runner(slot.index),
        onCrashLine: () => onCrash(runtime),
      });
      const started = await ready(runtime, firstAnswer);
      started?.showOutput((line) => output(line));
      return started;
    },
    // A replacement prepared for a silent runner (prepared-replacement.mjs) serves on a socket
    // of its own until it takes the slot's place: its file is renamed onto the slot's (the
    // listening socket goes with its file), so the host's binding reaches it at once.
    launchAside: async (slot, onCrash) => {
      const aside = runnerSocket(ASIDE + slot.index);
      aside.clear();
      /** @type {Runtime} */
      const runtime = runtimes.start({
        name: `runner ${slot.index}`,
        message: runner(ASIDE + slot.index),
        onCrashLine: () => onCrash(runtime),
      });
      const started = await ready(runtime);
      if (!started) return null;
      started.showOutput((line) => output(line));
      return {
        runtime: started,
        promote: () => moveSocketOnto(aside.file, runnerSocket(slot.index).file),
      };
    },
    watch: (runtime, onStuck, since) => watchOver(runtime, RUNNER_STUCK_MS, onStuck, since),
    askToRetire: (runtime) => askToRetire(runtime.socket),
    counts: (runtime) => runnerCounts(runtime.socket),
    readCode: (runtime, hash) => readStableCode(runtime.socket, hash),
    warm: (runtime, code) => warmWith(runtime.socket, code),
    rssOf: (runtime) => residentBytes(runtime.pid, (path) => readFileSync(path, "utf8")),
  });

  const hosts = createHostPair({
    warmStandby,
    clock,
    log,
    label,
    fail,
    launch: async (onCrash) => {
      // The runners' ports are known once they have started (the host's bindings need them).
      hostMessage ??= host(pool.addresses(), spareRunners(runners));
      const name = `runtime ${++count}`;
      // The host started beside the launch check, when it is the one planned (early-host.mjs).
      const taken = early?.host.take(hostMessage, () => onCrash(runtime));
      if (early && count === 1)
        log(
          taken
            ? `${label}: ${name} started beside the launch check (the last launch's memo).`
            : `${label}: the settings changed since the last launch: starting the planned host.`,
        );
      /** @type {Runtime} */
      const runtime =
        taken ??
        runtimes.start({ name, message: hostMessage, onCrashLine: () => onCrash(runtime) });
      const started = await ready(runtime);
      if (started && hosts.active()) log(`${label}: ${describe(started)} stands by.`);
      // The first host counts as ready once the kept runner holds the host's stable code (the
      // shared worker's engine; none with the per-run isolate), and every runner started after
      // is warmed with it at its start: a cold pool's first run on each runner waited 1.4–2.2 s
      // for the engine (bench/README.md, "Fair share from a cold pool").
      if (started && count === 1 && runners > 0)
        await warmFirstHost({
          read: () => readHostCode(started.socket),
          poolUp,
          teach: pool.teach,
          clock,
          boundMs: WARM_FIRST_MS,
        });
      return started;
    },
    watch: (runtime, onStuck) => watchOver(runtime, HOST_STUCK_MS, onStuck),
    serving: (runtime) => runtime.showOutput(withoutEmptySlotNoise((line) => output(line))),
    cutOff: (runtime, reason) => front.cutOff(runtime, reason),
  });

  const front = createFront({
    ...frontLimits,
    ...(logRequests ? { logRequest: log } : {}),
    // Before the first host is ready a request waits for it, then hears "starting" (never
    // "stopping": host-pair.mjs).
    target: async () => {
      const runtime = await hosts.target();
      return runtime === STARTING ? { starting: true } : runtime;
    },
  });

  /** @param {number} code */
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    hosts.stop();
    pool.stop();
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

  // Runners and the host start together: the host's bindings need only the runners' socket
  // addresses, known before any of them starts, and a run sent to a runner not yet listening
  // is sent again (runner-loader.ts). One after the other, a desktop launch waited for both
  // starts in turn (issue #43). The host first: its configuration is read and filled in this
  // thread before the runner's (the host's start is the longer, and a client waits for it).
  const [first, poolStarted] = await Promise.all([
    hosts.start(),
    pool.start().then((up) => (poolStartedWith(up), up)),
  ]);
  if (!poolStarted || !first) return stop(1);
  const described =
    runners > 0
      ? `${runners} sandbox runner${runners === 1 ? "" : "s"} at most${spareRunners(runners) > 0 ? " and a spare" : ""}, ${pool.slots.filter((slot) => slot.runtime).length} running`
      : "no runners";
  log(
    `${label}: ready on http://127.0.0.1:${port} (${describe(first)}; ${warmStandby ? "a standby is starting" : "no standby"}; ${described}).`,
  );
  onReady?.();
  if (runners > 0) void pool.retireLoop();
  if (runners > 0) void noticeUnused();

  /**
   * Looks for a kept runner the host stopped using (runners/unused-runner.mjs) until the server
   * stops, and has the active host forget its stale marks on it.
   */
  async function noticeUnused() {
    const notice = unusedRunnerNotice({
      kept: (slot) => slot.index <= keep,
      forget: async (slot, quietMs) => {
        const active = hosts.active();
        return active ? askHostToForget(active.socket, slot.index, quietMs) : null;
      },
      log,
      label,
    });
    // Read through a function: the linter takes a plain variable for one this loop never changes.
    const stopped = () => stopping;
    while (!stopped()) {
      await clock.sleep(CHECK_EVERY_MS);
      if (!stopped()) await notice(pool.slots, clock.now());
    }
  }
}
