/**
 * The local runtimes of one server: workerd processes started through Miniflare, all held by one
 * Node process (runtime-host.mjs) in a process group of its own, so the whole set can be ended at
 * once and a SIGKILLed supervisor leaves nothing behind (the host process notices its channel
 * close). Each runtime is still ended on its own (its workerd is SIGKILLed). The `npm start`
 * supervisor keeps a host runtime (a warm standby beside it with HOST_STANDBY=warm) and a few
 * sandbox runners.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { healthRequest } from "./health-request.mjs";
import { groupMembers, killGroup, signalGroup } from "./process-group.mjs";
import { RUNTIME_HOST_NODE_FLAGS } from "./v8-flags.mjs";

const HOST = fileURLToPath(new URL("./runtime-host.mjs", import.meta.url));
// The line a runtime prints when its workerd crashed (it is then ended: runtime-host.mjs).
const CRASH_LINE = "The Workers runtime crashed unexpectedly";
// Request lines of the supervisor's own probes (several a second) would drown the rest.
const PROBE_LINE = /\bHEAD \/health\b/;

/**
 * @typedef {object} Runtime
 * @property {string} name - "runtime 1", "runner 2", … (for messages)
 * @property {string} socket - the Unix socket it serves HTTP on, in the server's private folder
 *   ("" until ready): the host's direct socket, a runner's `/health` and `/retire`
 * @property {number} pid - its workerd's process id (0 until ready)
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
 * @property {(options: { name: string, message: import("./runtime-host.mjs").RuntimeMessage, onCrashLine: () => void }) => Runtime} start
 * @property {() => Promise<void>} stop - ends every runtime and the host process
 * @property {() => number | undefined} group - the host process's group, while it runs
 */

/**
 * The process that holds the runtimes, started when the first runtime is, and again after it
 * died (every runtime it held is then reported exited, and the supervisor starts new ones).
 * @param {Record<string, string>} env - its environment (runtime-env.mjs: no settings)
 * @param {string} folder - the server's private socket folder (socket-folder.mjs): every
 *   runtime's sockets are made there
 * @returns {RuntimeHost}
 */
export function createRuntimeHost(env, folder) {
  /** @type {import("node:child_process").ChildProcess | undefined} */
  let child;
  /** @type {Map<string, { onLine: (line: string) => void, onReady: (ready: any) => void, onExit: (reason: string) => void }>} */
  const runtimes = new Map();
  let count = 0;

  const ensure = () => {
    if (child && child.exitCode === null && child.signalCode === null) return child;
    const started = spawn(process.execPath, [...RUNTIME_HOST_NODE_FLAGS, HOST, folder], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // Only this: the launcher's own environment stays out (runtime-env.mjs).
      env: /** @type {NodeJS.ProcessEnv} */ (/** @type {unknown} */ (env)),
    });
    child = started;
    started.on("message", (/** @type {any} */ m) => {
      const runtime = runtimes.get(m?.id);
      if (!runtime) return;
      if (typeof m.line === "string") runtime.onLine(m.line);
      else if (m.ready) runtime.onReady(m.ready);
      else if (typeof m.exited === "string") runtime.onExit(m.exited);
    });
    // Anything the host process itself prints goes to every runtime's output.
    for (const stream of [started.stdout, started.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on("line", (line) => {
        for (const runtime of runtimes.values()) runtime.onLine(line);
      });
    }
    started.once("exit", () => {
      // Its workerd processes outlive it (nothing kills a child whose parent was SIGKILLed):
      // they are in its process group, so end them before they are reported gone.
      void killGroup(/** @type {number} */ (started.pid)).then(() => {
        for (const runtime of runtimes.values()) runtime.onExit("its runtime host process exited");
      });
    });
    return started;
  };

  return {
    group: () => (child && child.exitCode === null ? child.pid : undefined),
    stop: async () => {
      const group = child?.pid;
      if (group === undefined || child?.exitCode !== null) return;
      signalGroup(group, "SIGTERM");
      const exited = new Promise((r) => child?.once("exit", r));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
      await killGroup(group);
    },
    start: ({ name, message, onCrashLine }) => {
      const id = `r${++count}`;
      const host = ensure();
      /** @type {string[]} */
      const recent = [];
      /** @type {((line: string) => void) | null} */
      let sink = null;
      let running = true;
      /** @type {(value: boolean) => void} */
      let settleReady = () => {};
      /** @type {() => void} */
      let settleExit = () => {};
      const ready = new Promise((r) => (settleReady = r));
      const exited = new Promise((r) => (settleExit = () => r(undefined)));
      runtimes.set(id, {
        onLine: (line) => {
          recent.push(line);
          if (recent.length > 40) recent.shift();
          if (!PROBE_LINE.test(line)) sink?.(line);
          if (line.includes(CRASH_LINE)) onCrashLine();
        },
        onReady: (info) => {
          runtime.socket = String(info.socket);
          runtime.pid = Number(info.pid ?? 0);
          runtime.lastAnswer = Date.now();
          settleReady(true);
        },
        onExit: (reason) => {
          if (!running) return;
          running = false;
          runtime.endedBecause = reason;
          runtimes.delete(id);
          settleReady(false);
          settleExit();
        },
      });
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
          // At once, here too: the host process may be slow to answer on a loaded machine.
          if (runtime.pid > 0) {
            try {
              process.kill(runtime.pid, "SIGKILL");
            } catch {
              // already gone
            }
          }
          if (host.connected) host.send({ kill: id });
          else runtimes.get(id)?.onExit(reason);
          await exited;
        },
      };
      host.send({ start: id, message });
      return runtime;
    },
  };
}

/**
 * Waits until the runtime reports ready and its `/health` answers, or it exits, or `timeoutMs`
 * passes.
 * @param {Runtime} runtime
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} whether it is ready
 */
export async function waitReady(runtime, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const started = await Promise.race([
    runtime.ready,
    new Promise((r) => setTimeout(r, timeoutMs, false)),
  ]);
  if (!started) return false;
  while (runtime.isRunning() && Date.now() < deadline) {
    if (await probe(runtime.socket, 5_000)) {
      runtime.lastAnswer = Date.now();
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/**
 * One health probe: the Worker's `/health` answer when it came within `timeoutMs` and shows the
 * runtime alive, else null. A 503 (a configuration problem the Worker reports there, as JSON)
 * still means the runtime is alive.
 * @param {string} socket - the runtime's (Runtime.socket)
 * @param {number} timeoutMs
 * @returns {Promise<import("./health-request.mjs").HealthAnswer | null>}
 */
export async function probe(socket, timeoutMs) {
  const answer = await healthRequest(socket, { method: "HEAD", path: "/health", timeoutMs });
  if (!answer) return null;
  const json = String(answer.headers["content-type"] ?? "").startsWith("application/json");
  return answer.status === 200 || (answer.status === 503 && json) ? answer : null;
}

/**
 * Resident memory in KiB of the runtime host process group (every runtime's workerd and the one
 * Node process holding them; Linux, 0 elsewhere).
 * @param {RuntimeHost} host
 */
export function runtimesMemoryKiB(host) {
  const group = host.group();
  let total = 0;
  for (const pid of group === undefined ? [] : (groupMembers(group) ?? [])) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      total += Number(m?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
