/**
 * One local runtime: `wrangler dev` (and the workerd processes it starts) on an internal loopback
 * port, in a process group of its own so it can be ended as a whole. The `npm start` supervisor
 * keeps two of them: the active one behind the public port and a warm standby.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { groupMembers, killGroup } from "./process-group.mjs";

const GUARD = fileURLToPath(new URL("./parent-guard.mjs", import.meta.url));
// Miniflare's line when workerd died and it restarts it; the restarted runtime was seen to never
// answer again (issue #13, hole 6), so the supervisor replaces the whole runtime instead.
const CRASH_LINE = "The Workers runtime crashed unexpectedly";
// The supervisor probes with HEAD, which marks its requests in wrangler's log (clients use GET).
const PROBE_LINE = /\bHEAD \/health\b/;

/**
 * @typedef {object} Runtime
 * @property {string} name - "runtime 1", "runtime 2", … (for messages)
 * @property {number} port - its internal loopback port
 * @property {number} group - its process group id
 * @property {Promise<void>} exited - settles when wrangler's launcher exits
 * @property {() => boolean} isRunning
 * @property {() => string[]} recentOutput - its last output lines (for error messages)
 * @property {(to: ((line: string) => void) | null) => void} showOutput - where its output goes
 *   from now on (null: kept only in recentOutput)
 * @property {(reason: string) => Promise<boolean>} kill - SIGKILL the group; resolves when no
 *   process of it is left
 * @property {string | undefined} killedBecause - the reason given to kill, once called
 */

/**
 * Starts `wrangler dev` with `args` (everything but the address) on `port`.
 * @param {object} options
 * @param {string} options.name
 * @param {string} options.wrangler - path of wrangler's bin/wrangler.js
 * @param {string[]} options.args - `dev` and its options, without --ip/--port
 * @param {number} options.port
 * @param {NodeJS.ProcessEnv} options.env
 * @param {() => void} options.onCrashLine - called when the runtime prints Miniflare's crash line
 * @returns {Runtime}
 */
export function startRuntime({ name, wrangler, args, port, env, onCrashLine }) {
  // A dev registry of its own: wrangler dev registers every running Worker in one registry per
  // user and reloads a runtime when the registry changes, so the standby's start used to reload
  // the active runtime and cut off its requests in flight ("Network connection lost.").
  const registry = mkdtempSync(join(tmpdir(), "code-mode-registry-"));
  const child = spawn(
    process.execPath,
    [
      "--import",
      GUARD,
      wrangler,
      ...args,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      // Each runtime picks its own free inspector port (two would collide on 9229).
      "--inspector-port",
      "0",
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...env, WRANGLER_REGISTRY_PATH: registry },
    },
  );
  if (child.pid === undefined) throw new Error(`${name}: could not start wrangler`);
  const group = child.pid;
  let running = true;
  const exited = new Promise((resolve) =>
    child.once("exit", () => {
      running = false;
      rmSync(registry, { recursive: true, force: true });
      resolve(undefined);
    }),
  );
  /** @type {string[]} */
  const recent = [];
  /** @type {((line: string) => void) | null} */
  let sink = null;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      // wrangler logs every request; the supervisor's own probes (4 a second) would drown the rest.
      if (!PROBE_LINE.test(line)) sink?.(line);
      if (line.includes(CRASH_LINE)) onCrashLine();
    });
  }
  /** @type {Runtime} */
  const runtime = {
    name,
    port,
    group,
    exited,
    isRunning: () => running,
    recentOutput: () => [...recent],
    showOutput: (to) => {
      sink = to;
    },
    killedBecause: undefined,
    kill: async (reason) => {
      runtime.killedBecause ??= reason;
      return killGroup(group);
    },
  };
  return runtime;
}

/**
 * Waits until the runtime's `/health` answers 200, or it exits, or `timeoutMs` passes.
 * @param {Runtime} runtime
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} whether it is ready
 */
export async function waitReady(runtime, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (runtime.isRunning() && Date.now() < deadline) {
    if (await probe(runtime.port, 2_000)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/**
 * One health probe: whether the Worker's `/health` answered within `timeoutMs`. A 503 (a
 * configuration problem the Worker reports there, as JSON) still means the runtime is alive;
 * a bare 5xx from wrangler's own proxy in front of a stuck workerd does not.
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
export async function runtimeMemoryKiB(runtime) {
  const { readFileSync } = await import("node:fs");
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
