/**
 * New clients under a flood of long waits (attack10 review of issue #40): 1,000 MCP
 * `tasks/result` requests that a stand-in runtime (a Node server on a Unix socket) holds, as one
 * long task would, sent through the front (cli/local-server/front/front.mjs) with its default
 * bound of 1,000 connections; then 40 probes (a `tools/call` each on a new connection, 100 ms
 * apart). Prints how many waits the runtime holds, how many the front answered at once, and
 * each probe's status.
 *
 *   node bench/diagnostics/front-long-waits.mjs [front.mjs]
 *
 * Another tree's front module (e.g. a checkout of main) gives the before.
 */
import { rmSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const WAITS = 1_000;
const PROBES = 40;
const frontModule = process.argv[2]
  ? pathToFileURL(resolve(process.argv[2])).href
  : new URL("../../cli/local-server/front/front.mjs", import.meta.url).href;
const { createFront } = await import(frontModule);

const socket = join(tmpdir(), `front-long-waits-${process.pid}.sock`);
rmSync(socket, { force: true });
/** @type {import("node:http").ServerResponse[]} the waits the runtime holds */
const held = [];
const runtime = createServer((req, res) => {
  let body = "";
  req.on("data", (piece) => (body += piece));
  req.on("end", () => {
    if (body.includes("tasks/result")) held.push(res);
    else res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
});
await new Promise((done) => runtime.listen(socket, () => done(undefined)));
const front = createFront({
  target: async () => ({ name: "runtime 1", socket, killedBecause: undefined }),
});
await new Promise((done) => front.server.listen(0, "127.0.0.1", () => done(undefined)));
const port = /** @type {import("node:net").AddressInfo} */ (front.server.address()).port;
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * POSTs `body` to /mcp on a new connection.
 * @param {string} body
 * @returns {Promise<number | string>} the status, or the error's code
 */
const post = (body) =>
  new Promise((done) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/mcp",
        agent,
        headers: { "content-type": "application/json", connection: "close" },
      },
      (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode ?? 0));
      },
    );
    req.on("error", (error) => done(/** @type {NodeJS.ErrnoException} */ (error).code ?? "error"));
    req.end(body);
  });
const sleep = (/** @type {number} */ ms) => new Promise((done) => setTimeout(done, ms));

let answeredAtOnce = 0;
const waits = Array.from({ length: WAITS }, (_, id) =>
  post(JSON.stringify({ jsonrpc: "2.0", id, method: "tasks/result", params: { taskId: "t" } })),
);
for (const wait of waits) void wait.then((status) => status !== 200 && answeredAtOnce++);
// Guarded: every wait is either held by the runtime or answered, or 30 s passed.
const deadline = Date.now() + 30_000;
while (held.length + answeredAtOnce < WAITS && Date.now() < deadline) await sleep(100);
console.log(
  `waits held by the runtime: ${held.length}, answered at once: ${answeredAtOnce}, connections open: ${front.connectionsOpen()}`,
);
/** @type {(number | string)[]} */
const outcomes = [];
for (let i = 0; i < PROBES; i++) {
  outcomes.push(await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call" })));
  await sleep(100);
}
console.log(
  `probes served: ${outcomes.filter((s) => s === 200).length}/${PROBES}; in order: ${outcomes.join(" ")}`,
);
for (const res of held) res.end("{}");
await Promise.all(waits);
front.server.closeAllConnections();
front.server.close();
runtime.close();
