// Process helpers of the fresh-project test: run a command to completion (output kept and shown
// only on failure), or start a long-lived one in its own process group so that the whole tree
// (npx, wrangler, workerd) is stopped at the end.
import { spawn } from "node:child_process";

/**
 * Runs `command args` in `cwd` and resolves with its output; rejects with the output on a
 * non-zero exit or after `timeoutMs` (the process group is killed then).
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, timeoutMs?: number, anyExit?: boolean }} options - `anyExit`: resolve
 *   with the output whatever the exit code (the caller judges it)
 * @returns {Promise<string>}
 */
export function run(command, args, { cwd, timeoutMs = 180_000, anyExit = false }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(
        new Error(`${command} ${args.join(" ")} did not finish in ${timeoutMs} ms:\n${output}`),
      );
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0 || anyExit) resolve(output);
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Starts `command args` in its own process group; its output accumulates in `output()`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
 */
export function start(command, args, { cwd, env }) {
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let running = true;
  const exited = new Promise((resolve) => child.once("exit", resolve)).then(() => {
    running = false;
  });
  return {
    output: () => output,
    running: () => running,
    exited,
    /** Stops the whole group: SIGTERM, then SIGKILL if it is still there after 5 s. */
    async stop() {
      killGroup(child.pid, "SIGTERM");
      // The bound's timer cleared once it exited: pending, it kept the test alive 5 s more.
      /** @type {NodeJS.Timeout | undefined} */
      let bound;
      const done = await Promise.race([
        exited.then(() => true),
        new Promise((r) => (bound = setTimeout(r, 5_000, false))),
      ]);
      clearTimeout(bound);
      // wrangler may leave workerd behind in the group: always finish with SIGKILL.
      killGroup(child.pid, "SIGKILL");
      return done;
    },
  };
}

/**
 * Polls `url` until it answers (any status); fails when the server exits or `timeoutMs` passes.
 * @param {string} url
 * @param {{ output: () => string, running: () => boolean }} server - from {@link start}
 * @param {number} timeoutMs
 */
export async function waitForHttp(url, { output, running }, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!running()) throw new Error(`the server exited before ${url} answered:\n${output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await delay(500);
    }
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms:\n${output()}`);
}

/**
 * Sends `signal` to the process group led by `pid` (ignoring a group that is already gone).
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} [signal]
 */
function killGroup(pid, signal = "SIGKILL") {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** @param {number} ms */
function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
