/**
 * One local runtime: a Node process running workerd through Miniflare (miniflare-runtime.mjs),
 * in a process group of its own so it can be ended as a whole (Node and workerd together). The
 * `npm start` supervisor keeps a host runtime (with a warm standby) and a few sandbox runners.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { groupMembers, killGroup } from "./process-group.mjs";

const PROCESS = fileURLToPath(new URL("./miniflare-runtime.mjs", import.meta.url));
// The line a runtime prints when its workerd crashed (it then exits: miniflare-runtime.mjs).
const CRASH_LINE = "The Workers runtime crashed unexpectedly";
// Request lines of the supervisor's own probes (several a second) would drown the rest.
const PROBE_LINE = /\bHEAD \/health\b/;

/**
 * @typedef {object} Runtime
 * @property {string} name - "runtime 1", "runner 2", … (for messages)
 * @property {number} port - its HTTP port on 127.0.0.1 (0 until ready)
 * @property {string | undefined} rpcUrl - a runner's RPC socket (once ready)
 * @property {number} group - its process group id
 * @property {Promise<void>} exited - settles when its process exits
 * @property {() => boolean} isRunning
 * @property {() => string[]} recentOutput - its last output lines (for error messages)
 * @property {(to: ((line: string) => void) | null) => void} showOutput - where its output goes
 *   from now on (null: kept only in recentOutput)
 * @property {(reason: string) => Promise<boolean>} kill - SIGKILL the group; resolves when no
 *   process of it is left
 * @property {string | undefined} killedBecause - the reason given to kill, once called
 * @property {number} lastAnswer - when it last answered a probe (Date.now())
 */

/**
 * Starts a runtime process and sends it its options.
 * @param {object} options
 * @param {string} options.name
 * @param {import("./miniflare-runtime.mjs").RuntimeMessage} options.message - its Miniflare options
 * @param {NodeJS.ProcessEnv} options.env - the process environment (V8 flags; no settings)
 * @param {() => void} options.onCrashLine - called when the runtime reports a workerd crash
 * @returns {Runtime & { ready: Promise<boolean> }}
 */
export function startRuntime({ name, message, env, onCrashLine }) {
  const child = spawn(process.execPath, [PROCESS], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env,
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start`);
  const group = child.pid;
  let running = true;
  const exited = new Promise((resolve) =>
    child.once("exit", () => {
      running = false;
      resolve(undefined);
    }),
  );
  /** @type {string[]} */
  const recent = [];
  /** @type {((line: string) => void) | null} */
  let sink = null;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      if (!PROBE_LINE.test(line)) sink?.(line);
      if (line.includes(CRASH_LINE)) onCrashLine();
    });
  }
  const ready = new Promise((resolve) => {
    child.on("message", (/** @type {any} */ m) => {
      if (!m?.ready) return;
      runtime.port = Number(new URL(m.ready.url).port);
      runtime.rpcUrl = m.ready.rpcUrl;
      runtime.lastAnswer = Date.now();
      resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  child.send(message);
  /** @type {Runtime & { ready: Promise<boolean> }} */
  const runtime = {
    name,
    port: 0,
    rpcUrl: undefined,
    group,
    exited,
    ready: /** @type {Promise<boolean>} */ (ready),
    isRunning: () => running,
    recentOutput: () => [...recent],
    showOutput: (to) => {
      sink = to;
    },
    killedBecause: undefined,
    lastAnswer: Date.now(),
    kill: async (reason) => {
      runtime.killedBecause ??= reason;
      return killGroup(group);
    },
  };
  return runtime;
}

/**
 * Waits until the runtime reports ready and its `/health` answers, or it exits, or `timeoutMs`
 * passes.
 * @param {Runtime & { ready: Promise<boolean> }} runtime
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
    if (await probe(runtime.port, 5_000)) {
      runtime.lastAnswer = Date.now();
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/**
 * One health probe: whether the Worker's `/health` answered within `timeoutMs`. A 503 (a
 * configuration problem the Worker reports there, as JSON) still means the runtime is alive.
 * @param {number} port
 * @param {number} timeoutMs
 */
export async function probe(port, timeoutMs) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, {
      method: "HEAD",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
    return res.status === 200 || (res.status === 503 && json);
  } catch {
    return false;
  }
}

/**
 * Resident memory of the runtime's processes in KiB (Linux; 0 elsewhere).
 * @param {Runtime} runtime
 */
export function runtimeMemoryKiB(runtime) {
  let total = 0;
  for (const pid of groupMembers(runtime.group) ?? []) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      total += Number(m?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
