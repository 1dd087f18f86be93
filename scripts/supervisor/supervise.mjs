/**
 * The `npm start` supervisor: the public port is a Node front (front.mjs) before an active
 * runtime, with a warm standby beside it (runtime.mjs). The active runtime's `/health` is probed
 * every 250 ms; when a probe gets no answer within 1 s (a run blocks workerd's only thread in
 * native code, e.g. a catastrophic regex or `new Array(2**31).fill(0)`), or the runtime exits or
 * Miniflare reports a crash, its whole process group is SIGKILLed, the standby (already serving
 * /health) takes over, requests cut off get a clear error, and a new standby starts.
 *
 * Both runtimes use the same `--persist-to` folder. That is safe because workerd opens a Durable
 * Object's SQLite file only when the object is first used, and only the active runtime gets
 * requests (the standby only answers /health, which uses no Durable Object): checked by listing
 * the standby workerd's open files after writes through the active one (none under the folder).
 * The standby is promoted only after every process of the old group is gone, so two runtimes
 * never write the same files at once.
 */
import { freePort } from "../free-port.mjs";
import { createFront } from "./front.mjs";
import { signalGroup, killGroup } from "./process-group.mjs";
import { probe, startRuntime, waitReady } from "./runtime.mjs";

const PROBE_EVERY_MS = 250;
const PROBE_TIMEOUT_MS = 1_000;
const READY_TIMEOUT_MS = 120_000;

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 */

/** @param {Runtime} runtime */
const describe = (runtime) => `${runtime.name} (process group ${runtime.group})`;

/**
 * Runs the front on `port` and keeps a healthy runtime behind it until a stop signal. Never
 * returns; exits the process.
 * @param {object} options
 * @param {number} options.port - the public port
 * @param {string} options.wrangler - path of wrangler's bin/wrangler.js
 * @param {string[]} options.args - `dev` and its options, without --ip/--port
 * @param {NodeJS.ProcessEnv} options.env - the runtimes' environment
 * @param {() => void} options.cleanup - runs before the process exits
 * @param {(line: string) => void} [options.log]
 * @param {string} [options.label] - message prefix ("npm start", "code-mode-mcp")
 * @returns {Promise<void>}
 */
export async function supervise({
  port,
  wrangler,
  args,
  env,
  cleanup,
  log = console.log,
  label = "npm start",
}) {
  let count = 0;
  const state = { stopping: false };
  /** @type {Runtime | null} */
  let active = null;
  /** @type {Promise<Runtime | null> | null} */
  let standby = null;
  /** @type {Promise<Runtime | null> | null} */
  let promoting = null;
  /** @type {Set<Runtime>} */
  const all = new Set();

  const exit = (/** @type {number} */ code) => {
    cleanup();
    process.exit(code);
  };

  /** Starts a runtime and resolves to it once ready (null if it failed or the server is stopping). */
  const launch = async () => {
    const runtime = startRuntime({
      name: `runtime ${++count}`,
      wrangler,
      args,
      port: await freePort(),
      env,
      onCrashLine: () => void replace(runtime, "it crashed"),
    });
    all.add(runtime);
    void runtime.exited.then(() => {
      all.delete(runtime);
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

  const front = createFront({
    onLost: (runtime) => void replace(runtime, "it crashed"),
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
   * Ends `runtime` (if still active) and puts the standby in its place.
   * @param {Runtime} runtime
   * @param {string} reason - for the log and the clients cut off
   * @param {string} [detail] - for the log only
   */
  const replace = async (runtime, reason, detail = "") => {
    if (state.stopping || runtime !== active) return;
    active = null;
    runtime.killedBecause = reason;
    log(`${label}: ${runtime.name} is replaced because ${reason}${detail}.`);
    promoting = (async () => {
      const started = Date.now();
      await runtime.kill(reason);
      front.cutOff(runtime, reason);
      let next = await standby;
      standby = null;
      // No ready standby (it failed, or the crash came first): start one now.
      for (let tries = 0; !next && tries < 2 && !state.stopping; tries++) next = await launch();
      if (!next) {
        log(`${label}: no runtime could be started; stopping.`);
        await stop(1);
        return null;
      }
      active = next;
      next.showOutput(log);
      log(`${label}: ${describe(next)} serves now (${Date.now() - started} ms after the switch).`);
      standby = launch();
      return next;
    })();
    await promoting;
    promoting = null;
  };

  /** @param {number} code */
  const stop = async (code) => {
    if (state.stopping) return;
    state.stopping = true;
    front.server.close();
    front.server.closeAllConnections();
    // SIGTERM lets wrangler end workerd itself; SIGKILL whatever is left after 3 s.
    for (const runtime of all) signalGroup(runtime.group, "SIGTERM");
    await Promise.all(
      [...all].map((runtime) =>
        Promise.race([runtime.exited, new Promise((r) => setTimeout(r, 3_000))]).then(() =>
          killGroup(runtime.group),
        ),
      ),
    );
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
      `${label}: cannot listen on 127.0.0.1:${port} (${error.code ?? error.message}).\n  Fix: stop what uses the port, or choose another: PORT=8788 npm start (--port 8788)`,
    );
    exit(1);
  });

  promoting = launch();
  const first = await promoting;
  promoting = null;
  if (!first) return stop(1);
  active = first;
  first.showOutput(log);
  log(`${label}: ready on http://127.0.0.1:${port} (${describe(first)}; a standby is starting).`);
  standby = launch();

  // The health probe: a fixed rhythm, one probe at a time.
  for (;;) {
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    if (state.stopping) return;
    /** @type {Runtime | null} */
    const current = active;
    if (!current) {
      await promoting;
      continue;
    }
    if (!(await probe(current.port, PROBE_TIMEOUT_MS)) && current === active)
      await replace(
        current,
        "a run blocked it",
        ` (no /health answer within ${PROBE_TIMEOUT_MS} ms)`,
      );
  }
}
