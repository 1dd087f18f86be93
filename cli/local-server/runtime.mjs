/**
 * The local runtimes of one server: one workerd process each, started by this (the supervisor's)
 * process with a configuration Miniflare built in a short-lived Node process
 * (workerd-config-builder.mjs, driven by config-builder-client.mjs), behind a lifeline that ends
 * it when the supervisor is gone, even SIGKILLed (workerd-launch.mjs). No Node process stays
 * beside the runtimes to hold Miniflare (issue #43: that one was ~130 MB resident idle). The
 * `npm start` supervisor keeps a host runtime (a warm standby beside it with HOST_STANDBY=warm)
 * and a few sandbox runners.
 *
 * One configuration serves every runtime started from the same options: the host and each of its
 * replacements, every runner (their sockets differ only on the command line). The bytes are kept
 * here for the next start (they hold the settings and secrets: in memory only, given to workerd
 * on its stdin, never in a file or a process environment). Between launches, the configuration
 * cache keeps each configuration without this launch's values (runtime-config.mjs,
 * config-cache.mjs): a launch with nothing changed starts its runtimes without Miniflare.
 *
 * Whether a started runtime listens and answers is the health room's (health/readiness.mjs, and
 * health/watchdog.mjs from then on).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { configBuilder } from "./workerd-config/config-builder-client.mjs";
import { configParts } from "./workerd-config/config-parts.mjs";
import { jsonDigest } from "./workerd-config/json-digest.mjs";
import { runtimeConfig } from "./workerd-config/runtime-config.mjs";
import { killGroup } from "./process-group.mjs";
import { runtimeSockets } from "./socket-folder.mjs";
import { withFlags } from "./v8-flags.mjs";
import { controlLine, logText, spawnWorkerd, workerdArguments } from "./workerd-launch.mjs";

// The line a runtime prints when its workerd crashed (a fatal banner of workerd's own).
const CRASH_LINE = "The Workers runtime crashed unexpectedly";
// Request lines of the supervisor's own probes (several a second) would drown the rest.
const PROBE_LINE = /\bHEAD \/health\b/;

/**
 * @typedef {object} RuntimeMessage
 * @property {Record<string, unknown>} options - Miniflare (V4-style) options, plain data
 * @property {{ worker: string } | undefined} [direct] - the Worker given a direct socket (its
 *   default entrypoint, not Miniflare's entry Worker) in the private folder, which this runtime
 *   reports as its `socket` (the host); without, its entry socket is reported (runners)
 * @property {string[]} [v8Flags] - V8 flags for this runtime's workerd only, after the server's
 *   own (a flag the user set in MINIFLARE_WORKERD_V8_FLAGS keeps the user's value)
 */

/**
 * @typedef {object} Runtime
 * @property {string} name - "runtime 1", "runner 2", … (for messages)
 * @property {string} socket - the Unix socket it serves HTTP on, in the server's private folder
 *   ("" until ready): the host's direct socket, a runner's `/health` and `/retire`
 * @property {number} pid - its workerd's process id (0 until started)
 * @property {Promise<void>} exited - settles when it has ended
 * @property {Promise<boolean>} ready - settles with whether it started
 * @property {() => boolean} isRunning
 * @property {() => string[]} recentOutput - its last output lines (for error messages)
 * @property {(to: ((line: string) => void) | null) => void} showOutput - where its output goes
 *   from now on (null: kept only in recentOutput)
 * @property {(reason: string) => Promise<void>} kill - ends it at once; resolves when its workerd
 *   is gone
 * @property {string | undefined} killedBecause - the reason given to kill, once called
 * @property {string | undefined} endedBecause - why it ended, once it has
 * @property {number} lastAnswer - when it last answered a probe (Date.now())
 * @property {import("node:http").IncomingHttpHeaders | undefined} lastHeaders - the headers of
 *   that answer (a runner's counts of runs: runner-retirement.mjs)
 */

/**
 * @typedef {object} RuntimeHost
 * @property {(options: { name: string, message: RuntimeMessage, onCrashLine: () => void }) => Runtime} start
 * @property {() => Promise<void>} stop - ends every runtime (and the configuration builder)
 * @property {() => number[]} pids - the workerd processes running now
 */

/**
 * The local runtimes of one server (see the header).
 * @param {Record<string, string>} env - workerd's environment (runtime-env.mjs: no settings)
 * @param {string} folder - the server's private socket folder (socket-folder.mjs): every
 *   runtime's sockets are made there, and Miniflare's temporary files (`tmp`)
 * @param {object} [kept]
 * @param {string} [kept.persist] - the local data folder (a slot of the kept configurations)
 * @param {import("./workerd-config/runtime-config.mjs").ConfigSources["cache"]} [kept.cache] - the
 *   configuration cache (config-cache.mjs); without, every launch builds
 * @param {(line: string) => void} [kept.note] - told whether each configuration was kept
 * @returns {RuntimeHost}
 */
export function createRuntimeHost(env, folder, kept = {}) {
  const serverFlags = env.MINIFLARE_WORKERD_V8_FLAGS ?? "";
  const placeholder = `unix:${join(folder, "unbound", "placeholder.sock")}`;
  const inspectorBase = inspectorPortSetting(env.WORKERD_INSPECTOR_PORT);
  let inspectors = 0;
  let count = 0;
  let stopped = false;
  /** @type {Set<{ pid: number, kill: (reason: string) => Promise<void> }>} */
  const live = new Set();
  /** @type {WeakMap<RuntimeMessage, { key: string, parts: ReturnType<typeof configParts> }>} */
  const seen = new WeakMap();
  /** @type {Map<string, Promise<import("./workerd-config/config-builder-client.mjs").Built>>} */
  const configs = new Map();
  const builderEnv = { ...env, TMPDIR: join(folder, "tmp") };
  const builder = configBuilder(builderEnv);

  /**
   * The configuration of a message, built once.
   * @param {RuntimeMessage} message
   */
  const configOf = (message) => {
    let known = seen.get(message);
    if (!known) {
      const parts = configParts(message, placeholder);
      const v8Flags = withFlags(serverFlags, message.v8Flags ?? []);
      const key = jsonDigest([parts.options, v8Flags]);
      known = { key, parts };
      seen.set(message, known);
    }
    const { key, parts } = known;
    let built = configs.get(key);
    if (!built) {
      built = runtimeConfig(
        {
          options: parts.options,
          v8Flags: withFlags(serverFlags, message.v8Flags ?? []),
          folders: { sockets: folder, ...(kept.persist ? { persist: kept.persist } : {}) },
        },
        { builder, cache: kept.cache, env: builderEnv, onKey: kept.note },
      );
      configs.set(key, built);
      // A failed build is tried again by the next start.
      built.catch(() => configs.delete(key));
    }
    return built.then((b) => ({ ...b, named: parts.named, direct: parts.direct }));
  };

  return {
    pids: () => [...live].map((r) => r.pid).filter((pid) => pid > 0),
    stop: async () => {
      stopped = true;
      builder.end();
      const all = [...live];
      await Promise.race([
        Promise.all(all.map((r) => r.kill("the server is stopping"))),
        new Promise((r) => setTimeout(r, 3_000)),
      ]);
      await Promise.all(all.filter((r) => r.pid > 0).map((r) => killGroup(r.pid)));
    },
    start: ({ name, message, onCrashLine }) => {
      const id = `r${++count}`;
      const sockets = runtimeSockets(folder, id);
      /** @type {string[]} */
      const recent = [];
      /** @type {((line: string) => void) | null} */
      let sink = null;
      let running = true;
      /** @type {import("node:child_process").ChildProcess | undefined} */
      let child;
      /** @type {(value: boolean) => void} */
      let settleReady = () => {};
      /** @type {() => void} */
      let settleExit = () => {};
      const ready = new Promise((r) => (settleReady = r));
      const exited = new Promise((r) => (settleExit = () => r(undefined)));
      const line = (/** @type {string} */ text) => {
        recent.push(text);
        if (recent.length > 40) recent.shift();
        if (!PROBE_LINE.test(text)) sink?.(text);
        if (text.includes(CRASH_LINE)) onCrashLine();
      };
      const ended = (/** @type {string} */ reason) => {
        if (!running) return;
        running = false;
        runtime.endedBecause = reason;
        live.delete(record);
        sockets.clear();
        settleReady(false);
        settleExit();
      };
      /** @type {Runtime} */
      const runtime = {
        name,
        socket: "",
        pid: 0,
        exited: /** @type {Promise<void>} */ (exited),
        ready: /** @type {Promise<boolean>} */ (ready),
        isRunning: () => running,
        recentOutput: () => [...recent],
        showOutput: (to) => {
          sink = to;
        },
        killedBecause: undefined,
        endedBecause: undefined,
        lastAnswer: Date.now(),
        lastHeaders: undefined,
        kill: async (reason) => {
          runtime.killedBecause ??= reason;
          if (!running) return;
          if (!child) return ended("it was ended");
          try {
            // At once: a blocked thread handles no gentler signal.
            child.kill("SIGKILL");
          } catch {
            // already gone
          }
          await exited;
        },
      };
      const record = {
        get pid() {
          return runtime.pid;
        },
        kill: runtime.kill,
      };
      live.add(record);
      // The message as an argument, not a variable the runtime's closures share: a runtime does
      // not hold its message (a host's: the compiled spec's text) once its configuration is built.
      const launch = async (/** @type {RuntimeMessage} */ given) => {
        let built;
        try {
          built = await configOf(given);
        } catch (error) {
          for (const part of String(error instanceof Error ? error.message : error).split("\n"))
            line(part);
          return ended("it did not start");
        }
        if (!running) return;
        /** @type {Record<string, string>} */
        const named = { ...built.named };
        if (built.direct) named[built.direct] = `unix:${sockets.direct.file}`;
        const inspectorPort =
          inspectorBase === undefined ? undefined : inspectorBase + inspectors++;
        if (inspectorPort !== undefined)
          line(`V8 inspector: http://127.0.0.1:${inspectorPort}/json/list`);
        let args;
        try {
          args = workerdArguments(
            built.args,
            { entry: sockets.entry, loopback: sockets.loopback, named },
            inspectorPort,
          );
        } catch (error) {
          line(error instanceof Error ? error.message : String(error));
          return ended("it did not start");
        }
        sockets.clear();
        const started = spawnWorkerd({
          command: built.command,
          args,
          config: built.config,
          env: { ...env, TZ: "UTC", FORCE_COLOR: "0" },
        });
        child = started;
        runtime.pid = started.pid ?? 0;
        const lifeline = /** @type {import("node:stream").Writable} */ (started.stdio[4]);
        lifeline.on("error", () => {});
        for (const stream of [started.stdout, started.stderr]) {
          if (!stream) continue;
          createInterface({ input: stream }).on("line", (text) => {
            const shown = logText(text);
            if (shown !== null) line(shown);
          });
        }
        const waiting = new Set(["entry", ...Object.keys(named)]);
        const control = /** @type {import("node:stream").Readable} */ (started.stdio[3]);
        createInterface({ input: control }).on("line", (text) => {
          if (!running || !controlLine(waiting, text)) return;
          runtime.socket = built.direct ? sockets.direct.file : sockets.entry;
          runtime.lastAnswer = Date.now();
          settleReady(true);
        });
        started.once("exit", () => {
          // The lifeline's watcher leaves without killing (workerd-launch.mjs).
          lifeline.end("x\n");
          ended(runtime.killedBecause === undefined ? "it exited" : "it was ended");
        });
        if (runtime.killedBecause !== undefined) started.kill("SIGKILL");
      };
      if (stopped) ended("the server is stopping");
      else void launch(message);
      return runtime;
    },
  };
}

/**
 * The first inspector port from WORKERD_INSPECTOR_PORT, or undefined when unset. Diagnostics only:
 * the runtimes then take that port, the next one, and so on (each prints its address); it lets
 * anyone on this machine run code in the runtimes, so never set it on a shared machine.
 * @param {string | undefined} setting
 * @returns {number | undefined}
 */
export function inspectorPortSetting(setting) {
  if (setting === undefined || setting.trim() === "") return undefined;
  const port = Number(setting.trim());
  if (Number.isInteger(port) && port >= 1024 && port <= 65_000) return port;
  console.error(
    `WORKERD_INSPECTOR_PORT: "${setting}" is not a port from 1024 to 65000; the inspector stays off.\n  Fix: WORKERD_INSPECTOR_PORT=9230 (runtimes then take 9230, 9231, …).`,
  );
  return undefined;
}

/**
 * Resident memory in KiB of every runtime's workerd (Linux, 0 elsewhere).
 * @param {RuntimeHost} host
 */
export function runtimesMemoryKiB(host) {
  let total = 0;
  for (const pid of host.pids()) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      total += Number(m?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
