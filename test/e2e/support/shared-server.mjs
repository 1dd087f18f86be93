// One local server for several load scripts in turn (run.mjs's alone step, one per group of
// scripts): a server start costs ~10 s on an idle 2-core machine, paid once, not per script.
// run.mjs starts it with `startServer(SHARED_SETTINGS, { logTo })` and hands its address and output file to the scripts
// it marks `shared` through E2E_SHARED_SERVER; `withServer` in such a script attaches to it when
// the settings it asks for are the shared server's, and starts its own server otherwise (or
// when run by hand). Scripts run one at a time, so they never measure each other; before a
// script takes the server, every runner an earlier one had replaced serves again and is past the
// host's rest period, and what the script reads as the server's output (the replacements it
// asserts on) begins when it took it.
import { readFileSync, statSync } from "node:fs";

/** The environment variable naming the shared server (JSON of {@link SharedServer}). */
export const SHARED_SERVER_ENV = "E2E_SHARED_SERVER";

/**
 * The shared server's settings: the defaults, the executor spelled out so that a script asking
 * for `EXECUTOR=isolate-per-run` (runaway) may take it too.
 */
export const SHARED_SETTINGS = { EXECUTOR: "isolate-per-run" };

/** How long a script waits for the shared server to serve with every runner back. */
const SETTLE_MS = 60_000;

/**
 * How long the host passes over a runner that failed (src/executor/runners/runner-loader.ts,
 * read from the source: Node cannot import that .ts). Runs sent meanwhile avoid that runner, so
 * a script that needs runs on every runner (runner-kill kills one that has runs) starts after it.
 * @returns {number} ms
 */
export function runnerRestMs() {
  const source = readFileSync(
    new URL("../../../src/executor/runners/runner-loader.ts", import.meta.url),
    "utf8",
  );
  const ms = Number(
    /export const RUNNER_REST_MS = ([\d_]+);/.exec(source)?.[1]?.replaceAll("_", ""),
  );
  if (!Number.isFinite(ms) || ms <= 0)
    throw new Error(
      "e2e: no `export const RUNNER_REST_MS = <ms>;` in src/executor/runners/runner-loader.ts (test/e2e/support/shared-server.mjs reads it): update runnerRestMs() to where it is now",
    );
  return ms;
}

/**
 * @typedef {{ url: string, port: number, pid: number, logFile: string, settings: Record<string, string> }} SharedServer
 */

/**
 * The value of {@link SHARED_SERVER_ENV} for a server started by run.mjs.
 * @param {{ url: string, port: number, pid: number }} server
 * @param {string} logFile - where the server's output goes, as it comes
 * @returns {string}
 */
export function describeSharedServer({ url, port, pid }, logFile) {
  return JSON.stringify({ url, port, pid, logFile, settings: SHARED_SETTINGS });
}

/**
 * What is wrong with the server's state, read from its whole output: a runner replaced and not
 * back yet, or a host runtime replaced with none serving since. Empty: settled.
 * @param {string} log
 * @returns {string}
 */
export function unsettled(log) {
  /** @param {RegExp} re */
  const count = (re) => (log.match(re) ?? []).length;
  const runners = new Set([...log.matchAll(/runner (\d+) is replaced because/g)].map((m) => m[1]));
  for (const runner of runners) {
    const replaced = count(new RegExp(`runner ${runner} is replaced because`, "g"));
    const back = count(new RegExp(`runner ${runner} \\(workerd pid \\d+\\) serves again`, "g"));
    if (back < replaced) return `runner ${runner} was replaced and does not serve again yet`;
  }
  if (count(/runtime \d+ is replaced because/g) > count(/ serves now /g))
    return "its host runtime was replaced and no other serves yet";
  return "";
}

/**
 * The shared server, when this script was given one with the settings `env` asks for (every
 * setting in `env` has the same value there); waits until it serves with every runner back.
 * @param {Record<string, string>} env
 * @returns {Promise<import("./server.mjs").Started | undefined>} undefined: start an own server
 */
export async function attachSharedServer(env) {
  const raw = process.env[SHARED_SERVER_ENV];
  if (!raw) return undefined;
  /** @type {SharedServer} */
  const shared = JSON.parse(raw);
  if (!Object.entries(env).every(([key, value]) => shared.settings[key] === value))
    return undefined;
  const log = () => readFileSync(shared.logFile, "utf8");
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const healthy = await fetch(`${shared.url}/health`, { signal: AbortSignal.timeout(5_000) })
      .then((res) => res.status === 200)
      .catch(() => false);
    const problem = healthy ? unsettled(log()) : "/health does not answer 200";
    if (!problem) break;
    if (Date.now() > deadline)
      throw new Error(
        `the shared server on ${shared.url} (started by run.mjs) is not ready after ${SETTLE_MS / 1000} s: ${problem}. A script before this one left it so; its output says why. The server's output:\n${log()}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  // Past the host's rest period of the last replaced runner. The log has no times, but its
  // file's last change is one: every "serves again" line in it was written then or before, so
  // the rest ends by then + RUNNER_REST_MS (+1 s). Counted from now instead, each script after
  // one that replaced runners waited the whole 4 s, however long ago they served again.
  const rest = /runner \d+ is replaced because/.test(log())
    ? Math.max(0, statSync(shared.logFile).mtimeMs + runnerRestMs() + 1_000 - Date.now())
    : 0;
  await new Promise((r) => setTimeout(r, rest));
  const from = statSync(shared.logFile).size;
  console.log(
    `e2e: on the shared server ${shared.url} (npm start pid ${shared.pid}), its output from byte ${from}${rest > 0 ? ` (after ${Math.round(rest)} ms more of the runners' rest)` : ""}`,
  );
  return {
    url: shared.url,
    port: shared.port,
    pid: shared.pid,
    output: () => new TextDecoder().decode(readFileSync(shared.logFile).subarray(from)),
    log,
    // run.mjs stops it after the last script that shares it.
    stop: async () => {},
  };
}
