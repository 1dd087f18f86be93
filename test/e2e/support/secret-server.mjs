// A local server started the way `npm start` runs it once built (`node scripts/start.mjs`), with
// an IPC channel over which the launcher hands this process its cluster secret
// (LOCAL_CLUSTER_SECRET_TO_PARENT=1, cli/local-server/cluster-secret.mjs): for the e2e scripts
// that speak to the runners' own sockets as the server itself does (their counts, a retirement).
// Needs the product built (run.mjs builds first; by hand `npm run build:worker`). Stopped by
// process group, whatever happens.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLUSTER_SECRET_HEADER } from "../../../cli/local-server/cluster-secret.mjs";
import { freePort } from "../../../cli/local-server/free-port.mjs";
import { listeningUnixSockets } from "./listening-ports.mjs";
import { processTree } from "./processes.mjs";
import { check } from "./server.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const START_MS = 120_000;

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A server started with {@link startWithSecret}.
 * @typedef {{ url: string, group: number, secret: string, output: () => string, gone: () => boolean, stop: () => Promise<void> }} SecretServer
 */

/**
 * Starts the server with extra settings, waits until /health answers and the host stands (or
 * needs no standby) and the secret came, and runs `fn` with it; always stops it.
 * @template T
 * @param {Record<string, string>} env
 * @param {(server: SecretServer) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withSecretServer(env, fn) {
  const port = await freePort();
  const persist = mkdtempSync(join(tmpdir(), "codemode-e2e-secret-"));
  const child = spawn(process.execPath, [join(ROOT, "scripts/start.mjs")], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      PORT: String(port),
      PERSIST_TO: persist,
      ...env,
      LOCAL_CLUSTER_SECRET_TO_PARENT: "1",
    },
  });
  const state = { secret: "", output: "", gone: false };
  child.on("message", (/** @type {any} */ m) => {
    if (typeof m?.clusterSecret === "string") {
      state.secret = m.clusterSecret;
      child.disconnect();
    }
  });
  child.stdout?.on("data", (d) => (state.output += d));
  child.stderr?.on("data", (d) => (state.output += d));
  child.once("exit", () => (state.gone = true));
  const group = /** @type {number} */ (child.pid);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // gone
    }
    // The bound's timer cleared once it exits: pending, it kept the script alive 10 s more.
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    await Promise.race([
      new Promise((r) => child.once("exit", r)),
      new Promise((r) => (timer = setTimeout(r, 10_000))),
    ]);
    clearTimeout(timer);
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // gone
    }
    rmSync(persist, { recursive: true, force: true });
  };
  try {
    const startedAt = Date.now();
    for (;;) {
      check(!state.gone, `the server exited while starting:\n${state.output}`);
      check(Date.now() - startedAt < START_MS, `the server did not start:\n${state.output}`);
      const up = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (up && /stands by\.|; no standby;/.test(state.output) && state.secret !== "") break;
      await sleep(250);
    }
    return await fn({
      url,
      group,
      secret: state.secret,
      output: () => state.output,
      gone: () => state.gone,
      stop,
    });
  } finally {
    await stop();
  }
}

/**
 * One request to a Unix socket of the server, with the cluster secret (as the supervisor sends).
 * @param {string} socket
 * @param {string} path
 * @param {string} method
 * @param {string} secret
 * @returns {Promise<{ status: number, headers: import("node:http").IncomingHttpHeaders }>}
 *   status 0: no answer
 */
export function internal(socket, path, method, secret) {
  return new Promise((resolve) => {
    const req = request(
      { socketPath: socket, path, method, headers: { [CLUSTER_SECRET_HEADER]: secret } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error("no answer in 5 s")));
    req.on("error", () => resolve({ status: 0, headers: {} }));
    req.end();
  });
}

/**
 * The running runners' HTTP sockets (`rN.entry.sock` of a workerd with no direct socket: the
 * host's has one) among the server's processes now.
 * @param {number} group - the launcher's pid
 * @returns {string[]}
 */
export function runnerEntries(group) {
  return processTree(group)
    .filter((p) => p.command.includes("workerd"))
    .map((p) => listeningUnixSockets(p.pid))
    .filter((own) => !own.some((file) => file.endsWith(".direct.sock:0")))
    .flatMap((own) => own.filter((file) => /\/r\d+\.entry\.sock$/.test(file)));
}
