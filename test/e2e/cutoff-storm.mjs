// Issue #40, "One client can starve everyone" / "a client that never finishes": a client sends
// `execute` POSTs (a 3 s program) 100 at a time and cuts each off (its socket destroyed) 150 ms
// after sending it, 3,000 in all. Meanwhile another client's trivial `search` (every 100 ms)
// never fails and, from a second after the first cut-offs on, never waits more than MAX_WAIT_MS, the host runtime's own `/health` (asked on
// its socket, as the supervisor asks) always answers within HEALTH_MS, and no runtime is
// replaced.
//
// Before (2026-12-07, load 4–13): the host served every cut-off request in full (workerd
// notices a closed connection only once the request's turn on its thread came), its `/health`
// went unanswered from ~2 s after the storm began, the supervisor replaced it after 30 s, the
// other client's `search` waited 30 s and failed; each cut-off run also stayed on its runner slot
// for good (src/executor/runners/run-lease.ts). After: cut-off requests are paced at the front
// (cli/local-server/front/cut-off-gate.mjs). Measurements: bench/README.md, "Cut-off storm".
// On the shared 2-core machine at load 9–13 the search's longest wait after the first round was
// 474–910 ms in 4 of 7 runs and 1.36–2.0 s in 3, with the host's own `/health` slow then too
// (0.7–1.5 s) and the misses passing through the gate at once: the machine, not a queue; hence
// alone in run.mjs.
import { Worker } from "node:worker_threads";
import { pollSearch } from "./support/load-clients.mjs";
import { listeningUnixSockets } from "./support/listening-ports.mjs";
import { processTree } from "./support/processes.mjs";
import { replacements } from "./support/replacements.mjs";
import { internal, withSecretServer } from "./support/secret-server.mjs";
import { check, MCP_POST_HEADERS } from "./support/server.mjs";

const REQUESTS = 3_000;
const AT_ONCE = 100;
const CUT_MS = 150;
/** How long after the storm the script still watches: the host's backlog showed within it. */
const AFTER_MS = 10_000;
const MAX_WAIT_MS = 1_000;
/** The longest the host's own `/health` may take (the watchdog replaces it after 30 s). */
const HEALTH_MS = 5_000;
const PROGRAM = "async () => { await new Promise((r) => setTimeout(r, 3000)); return 1 }";

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The storm, sent from a worker thread: 3,000 requests' sockets and timers on the poller's own
 * event loop delayed its clock reads by up to ~0.5 s on a loaded machine, which the script then
 * counted as the server's wait (CI 2026-12-07: a search "waited" 1,390 ms). Each `execute` POST
 * is cut off (its socket destroyed) CUT_MS after it was sent.
 * @param {number} port
 * @returns {Promise<number>} how long the storm took (ms)
 */
function storm(port) {
  const code = `
    const { request } = require("node:http");
    const { parentPort, workerData } = require("node:worker_threads");
    const { port, requests, atOnce, cutMs, program, headers } = workerData;
    function cutOffPost(id) {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "execute", arguments: { code: program } },
      });
      return new Promise((resolve) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            path: "/mcp",
            method: "POST",
            agent: false,
            headers: { ...headers, "content-length": Buffer.byteLength(body) },
          },
          (res) => res.resume(),
        );
        req.on("error", () => {});
        req.on("close", resolve);
        const timer = setTimeout(() => req.destroy(), cutMs);
        req.on("close", () => clearTimeout(timer));
        req.end(body);
      });
    }
    const began = Date.now();
    let next = 0;
    Promise.all(
      Array.from({ length: atOnce }, async () => {
        while (next < requests) await cutOffPost(next++);
      }),
    ).then(() => parentPort.postMessage(Date.now() - began));
  `;
  const workerData = {
    port,
    requests: REQUESTS,
    atOnce: AT_ONCE,
    cutMs: CUT_MS,
    program: PROGRAM,
    headers: MCP_POST_HEADERS,
  };
  const worker = new Worker(code, { eval: true, workerData });
  return new Promise((resolve, reject) => {
    worker.once("message", (ms) => {
      void worker.terminate();
      resolve(/** @type {number} */ (ms));
    });
    worker.once("error", reject);
  });
}

/**
 * The host runtime's direct socket (the workerd that has one) among the server's processes.
 * @param {number} group
 */
function hostSocket(group) {
  for (const p of processTree(group).filter((q) => q.command.includes("workerd"))) {
    const socket = listeningUnixSockets(p.pid).find((f) => f.endsWith(".direct.sock:0"));
    if (socket) return socket;
  }
  return undefined;
}

await withSecretServer({}, async ({ url, group, secret, output }) => {
  const port = Number(new URL(url).port);
  const poller = await pollSearch(url);
  const socket = hostSocket(group);
  check(socket !== undefined, "no host runtime's socket found");
  const state = { storming: true };
  let longestHealthMs = 0;
  const health = (async () => {
    while (state.storming) {
      const asked = Date.now();
      const answer = await Promise.race([
        internal(socket, "/health", "GET", secret),
        sleep(HEALTH_MS + 1_000).then(() => ({ status: -1 })),
      ]);
      const ms = answer.status === 200 ? Date.now() - asked : Number.POSITIVE_INFINITY;
      longestHealthMs = Math.max(longestHealthMs, ms);
      await sleep(500);
    }
  })();
  const began = Date.now();
  const stormMs = await storm(port);
  await sleep(AFTER_MS);
  state.storming = false;
  await health;
  // The storm's first round is 100 runs at once that nobody has cut off yet: the pool takes it
  // as any burst (runners started on demand; e2e fair-share's concern). What is asserted is
  // the rest: from one second after the first cut-offs on.
  const settledAt = began + CUT_MS + 1_000;
  const longestAfter = poller.longestWithin(settledAt, Date.now());
  const polled = await poller.stop();
  const replaced = replacements(output());
  console.log(
    `e2e cutoff-storm: ${REQUESTS} cut-off executes in ${stormMs} ms; the other client: ${polled.calls} searches, p50 ${polled.p50Ms} ms, longest ${polled.longestMs} ms (${longestAfter} ms after the first round), ${polled.failures.length} failed; the host's /health: longest ${longestHealthMs} ms; ${replaced.length} replacement(s)`,
  );
  check(polled.failures.length === 0, `a search failed: ${polled.failures[0]}`);
  check(
    longestAfter <= MAX_WAIT_MS,
    `a search waited ${longestAfter} ms (> ${MAX_WAIT_MS}) after the storm's first round`,
  );
  check(
    longestHealthMs <= HEALTH_MS,
    `the host's /health took ${longestHealthMs} ms (> ${HEALTH_MS}) or went unanswered`,
  );
  check(replaced.length === 0, `replaced:\n${replaced.join("\n")}`);
});
console.log("e2e cutoff-storm: cut-off requests never starved the host or another client — ok");
