// The artificial load the load scripts run under (issue #28: "under an artificial load of 2 busy
// processes"): CPU-bound Node children that spin until stopped. They are children in this
// script's own process group, so run.mjs's deadline kill takes them too, and each also ends by
// itself once its parent is gone (a parent killed with SIGKILL runs no exit handler).
import { spawn } from "node:child_process";
import { withServer } from "./server.mjs";

// Spins, looking up its parent twice a second: re-parented means the script died.
const SPIN = `const parent = process.ppid;
let checked = Date.now();
for (;;) {
  if (Date.now() - checked > 500) {
    checked = Date.now();
    if (process.ppid !== parent) process.exit(0);
  }
}`;

/**
 * Starts `count` busy processes; `stop()` kills them (also called on this process's exit).
 * @param {number} [count]
 * @returns {{ pids: number[], stop: () => void }}
 */
export function startBusyLoad(count = 2) {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", SPIN], { stdio: "ignore" }),
  );
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    process.off("exit", stop);
  };
  process.on("exit", stop);
  return { pids: children.map((c) => /** @type {number} */ (c.pid)), stop };
}

/**
 * Runs `fn` with `count` busy processes running, always stopping them.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {number} [count]
 * @returns {Promise<T>}
 */
export async function underBusyLoad(fn, count = 2) {
  const load = startBusyLoad(count);
  console.log(`e2e load: ${count} busy processes (${load.pids.join(", ")}) spin beside the server`);
  try {
    return await fn();
  } finally {
    load.stop();
  }
}

/**
 * Runs `fn` with a started server and, once it serves (its standby too), `count` busy
 * processes beside it. The server starts on a quiet machine (~10 s less per script than starting
 * under the load); everything `fn` measures runs under the load. A start under load is what
 * stdio-big-spec checks.
 * @template T
 * @param {Record<string, string>} env - the server's settings
 * @param {(server: import("./server.mjs").Started) => Promise<T>} fn
 * @param {number} [count]
 * @returns {Promise<T>}
 */
export function withServerUnderLoad(env, fn, count = 2) {
  return withServer(env, (server) => underBusyLoad(() => fn(server), count));
}
