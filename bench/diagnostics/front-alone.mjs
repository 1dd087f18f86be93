/**
 * The front's CPU per request on its own (issue #43): the front (cli/local-server/front/front.mjs)
 * in a process of its own, before a stand-in runtime (a Node HTTP server on a Unix socket that
 * answers `ping` as the host Worker does, headers included), sent `ping`s one after another
 * with `fetch` as the bench's client sends them. The front's own `process.cpuUsage()` over the
 * calls, divided by them. The C rows (cpu-per-call.mjs) measure the whole launcher process:
 * the front and the supervisor's probes of every runtime, whose CPU per call grows with the
 * time a call takes; this measures the front alone.
 *
 *   node bench/diagnostics/front-alone.mjs [calls=2000] [rounds=3] [--floors] [--gap=ms] [front.mjs …]
 *
 * With several front modules (another tree's, for a before/after), each round runs each of them
 * in turn on a fresh process. `--floors` adds two references per round: a Node server that
 * answers itself (no hop: the HTTP server's own cost) and a bare Node proxy (`node:http` server
 * and client, no limits). `--gap=ms` waits that long between two calls, as a call that takes
 * the host and a runner that long leaves the front idle (a process woken after a pause on a busy
 * machine runs its same work slower: its caches were others').
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, Agent } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(import.meta.url);
const FRONT = fileURLToPath(new URL("../../cli/local-server/front/front.mjs", import.meta.url));

/** The host Worker's answer to a 2025-era `ping`, as workerd writes it. */
const ANSWER = JSON.stringify({ result: {}, jsonrpc: "2.0", id: 1 });
/**
 * Its headers, in workerd's order and case. With its `Content-Length` too: without it the
 * stand-in answered chunked, and the front then passed a chunked answer on (three more pieces
 * in its write to the client), which workerd never sends for such an answer.
 */
const ANSWER_HEADERS = {
  "Content-Length": String(Buffer.byteLength(ANSWER)),
  "Content-Type": "application/json",
  "Access-Control-Allow-Origin": "*",
  "access-control-allow-headers":
    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
  "access-control-max-age": "86400",
};

/** What runs in the child processes: `runtime <socket>`, `front <module> <socket>`, … */
async function child([role, ...args]) {
  if (role === "runtime") {
    createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, ANSWER_HEADERS).end(ANSWER));
    }).listen(args[0], () => process.send?.("ready"));
    return;
  }
  /** @type {import("node:http").Server} */
  let server;
  if (role === "front") {
    const { createFront } = await import(/** @type {string} */ (args[0]));
    const runtime = { name: "stand-in", socket: args[1], killedBecause: undefined };
    server = createFront({ target: async () => runtime }).server;
  } else if (role === "self") {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, ANSWER_HEADERS).end(ANSWER));
    });
  } else {
    // A bare proxy: the body read whole, passed on with node:http's client, the answer held.
    const agent = new Agent({ keepAlive: true });
    server = createServer((req, res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const up = request(
          { socketPath: args[0], method: req.method, path: req.url, headers: req.headers, agent },
          (answer) => {
            /** @type {Buffer[]} */
            const held = [];
            answer.on("data", (c) => held.push(c));
            answer.on("end", () => {
              res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
              res.end(Buffer.concat(held));
            });
          },
        );
        up.end(body);
      });
    });
  }
  server.listen(0, "127.0.0.1", () => {
    const address = /** @type {import("node:net").AddressInfo} */ (server.address());
    process.send?.({ port: address.port });
  });
  process.on("message", (m) => {
    if (m !== "cpu") return;
    const used = process.cpuUsage();
    process.send?.({ cpuMs: (used.user + used.system) / 1000 });
  });
}

/**
 * Starts a child in `role`; resolves with it and its first message.
 * @param {string[]} args
 */
async function start(args) {
  const proc = fork(HERE, ["--child", ...args], { stdio: "inherit" });
  const first = await new Promise((r) => proc.once("message", r));
  return { proc, first: /** @type {any} */ (first) };
}

/** @param {import("node:child_process").ChildProcess} proc */
function cpuOf(proc) {
  return new Promise((r) => {
    proc.once("message", (/** @type {any} */ m) => r(m.cpuMs));
    proc.send("cpu");
  });
}

/** @param {number} port */
async function ping(port) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ping: ${res.status} ${text.slice(0, 200)}`);
}

/**
 * CPU ms per request of each subject, `rounds` times.
 * @param {{ calls: number, rounds: number, fronts: string[], floors: boolean, gapMs?: number }} options
 * @param {(line: string) => void} log
 */
export async function frontAlone({ calls, rounds, fronts, floors, gapMs = 0 }, log) {
  const folder = mkdtempSync(join(tmpdir(), "front-alone-"));
  const socket = join(folder, "runtime.sock");
  const runtime = await start(["runtime", socket]);
  /** @type {Record<string, number[]>} */
  const results = {};
  try {
    const subjects = [
      ...(floors ? [["self"], ["proxy", socket]] : []),
      ...fronts.map((front) => ["front", front, socket]),
    ];
    for (let round = 1; round <= rounds; round++)
      for (const args of subjects) {
        const name = args[0] === "front" ? `front ${args[1]}` : /** @type {string} */ (args[0]);
        const { proc, first } = await start(args);
        try {
          // Warm-up: V8 compiles the path first.
          for (let i = 0; i < 500; i++) await ping(first.port);
          const before = await cpuOf(proc);
          for (let i = 0; i < calls; i++) {
            await ping(first.port);
            if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
          }
          const perCall = Math.round((((await cpuOf(proc)) - before) / calls) * 1000) / 1000;
          (results[name] ??= []).push(perCall);
          log(`round ${round}: ${name}: ${perCall} ms of CPU per request`);
        } finally {
          proc.kill();
        }
      }
  } finally {
    runtime.proc.kill();
    rmSync(folder, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[2] === "--child") await child(process.argv.slice(3));
else if (process.argv[1] === HERE) {
  const [calls = "2000", rounds = "3", ...rest] = process.argv
    .slice(2)
    .filter((a) => !a.startsWith("--"));
  const fronts = rest.length > 0 ? rest.map((path) => resolve(path)) : [FRONT];
  const results = await frontAlone(
    {
      calls: Number(calls),
      rounds: Number(rounds),
      fronts,
      floors: process.argv.includes("--floors"),
      gapMs: Number(
        /^--gap=(\d+)$/.exec(process.argv.find((a) => a.startsWith("--gap=")) ?? "")?.[1] ?? 0,
      ),
    },
    (line) => console.log(line),
  );
  for (const [name, values] of Object.entries(results))
    console.log(`${name}: ${Math.min(...values)}–${Math.max(...values)} ms per request`);
}
