/**
 * What knowing a local caller costs (cli/local-server/front/callers/): the CPU of this process
 * while peer-owners looks up connections on the machine's real /proc (Linux only).
 *
 * A server here; a "storm" child holding CONNECTIONS connections and BIG_FDS more descriptors
 * (/dev/null opened again and again: a process hiding behind its descriptors), an "honest" child
 * with one connection. Measured: the first look (a scan of every process, the storm's sockets
 * and the honest one together), then ROUNDS rounds of 50 new storm connections (a remembered
 * owner, or, for a storm hiding behind its descriptors, two scans each), then /proc/net/tcp read
 * alone. CPU is this process's (user + system).
 *
 *   npm exec -- node bench/diagnostics/callers-look.mjs [CONNECTIONS=600] [BIG_FDS=0]
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { createPeerOwners } from "../../cli/local-server/front/callers/peer-owners.mjs";
import { systemProc } from "../../cli/local-server/front/callers/proc-files.mjs";

const CONNECTIONS = Number(process.argv[2] ?? 600);
const BIG_FDS = Number(process.argv[3] ?? 0);
const ROUNDS = 10;

const server = createServer();
/** @type {import("node:net").Socket[]} */
const accepted = [];
server.on("connection", (socket) => accepted.push(socket));
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
const port = /** @type {import("node:net").AddressInfo} */ (server.address()).port;

/** A child that opens `fds` descriptors, then connections on each line of its stdin. */
const child = (/** @type {number} */ fds) =>
  spawn(
    process.execPath,
    [
      "-e",
      `const fs = require("node:fs"), net = require("node:net");
       for (let i = 0; i < ${fds}; i++) fs.openSync("/dev/null", "r");
       const keep = [];
       process.stdin.on("data", (d) => { for (let i = 0; i < Number(d); i++) keep.push(net.connect(${port}, "127.0.0.1").on("error", () => {})); });
       process.stdin.on("end", () => process.exit(0));`,
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
const storm = child(BIG_FDS);
const honest = child(0);

/** Asks `n` new connections of `who`, and resolves with their sockets once all were accepted. */
const open = async (
  /** @type {import("node:child_process").ChildProcess} */ who,
  /** @type {number} */ n,
) => {
  const from = accepted.length;
  who.stdin?.write(`${n}\n`);
  while (accepted.length < from + n) await new Promise((resolve) => setTimeout(resolve, 5));
  return accepted.slice(from, from + n);
};
/** CPU ms of this process while every socket gets its key. */
const timed = async (
  /** @type {ReturnType<typeof createPeerOwners>} */ owners,
  /** @type {import("node:net").Socket[]} */ sockets,
) => {
  const start = process.cpuUsage();
  const wall = performance.now();
  for (const s of sockets) owners.of(s);
  while (owners.waiting() > 0) await new Promise((resolve) => setTimeout(resolve, 2));
  const used = process.cpuUsage(start);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall };
};

/** What the looks read, counted. */
const reads = { tables: 0, links: 0, scans: 0 };
const owners = createPeerOwners({
  proc: {
    readFile: (path) => (reads.tables++, systemProc.readFile(path)),
    readdir: (path, max) => (path === "/proc" && reads.scans++, systemProc.readdir(path, max)),
    readlinks: (paths) => ((reads.links += paths.length), systemProc.readlinks(paths)),
    fdCounts: (paths) => systemProc.fdCounts(paths),
  },
});
const counted = () => {
  const text = `${reads.tables / 2} table reads, ${reads.scans} scans, ${reads.links} links`;
  Object.assign(reads, { tables: 0, links: 0, scans: 0 });
  return text;
};
const stormSockets = await open(storm, CONNECTIONS);
const [honestSocket] = await open(honest, 1);
if (!honestSocket) throw new Error("no honest connection");
await new Promise((resolve) => setTimeout(resolve, 300)); // the children settle
const load = loadavg()[0]?.toFixed(1);
const first = await timed(owners, [...stormSockets, honestSocket]);
const keys = new Map();
for (const s of [...stormSockets, honestSocket])
  keys.set(owners.of(s), (keys.get(owners.of(s)) ?? 0) + 1);
console.log(`connections ${CONNECTIONS}, storm's extra fds ${BIG_FDS}, load ${load}`);
console.log(
  `first look (scan): cpu ${first.cpuMs.toFixed(1)} ms, wall ${first.wallMs.toFixed(0)} ms, keys`,
  Object.fromEntries(keys),
);
console.log(
  `storm pid ${storm.pid}, honest pid ${honest.pid}: honest key ${owners.of(honestSocket)}`,
);
let cpu = 0;
let wall = 0;
/** @type {Map<string, number>} */
const later = new Map();
for (let round = 0; round < ROUNDS; round++) {
  const fresh = await open(storm, 50);
  const used = await timed(owners, fresh);
  cpu += used.cpuMs;
  wall += used.wallMs;
  for (const s of fresh) later.set(owners.of(s), (later.get(owners.of(s)) ?? 0) + 1);
}
console.log(
  `then ${ROUNDS} rounds of 50 new storm connections: per round cpu ${(cpu / ROUNDS).toFixed(1)} ms, wall ${(wall / ROUNDS).toFixed(0)} ms (cpu/wall ${((100 * cpu) / wall).toFixed(0)} %), keys`,
  Object.fromEntries(later),
  `(in all: ${counted()})`,
);
const table = await readFile("/proc/net/tcp", "utf8");
const t = process.cpuUsage();
for (let i = 0; i < 10; i++) await readFile("/proc/net/tcp", "utf8");
const tu = process.cpuUsage(t);
console.log(
  `/proc/net/tcp: ${table.split("\n").length} lines, ${table.length} bytes, read: cpu ${((tu.user + tu.system) / 10_000).toFixed(1)} ms`,
);
storm.stdin?.end();
honest.stdin?.end();
for (const s of accepted) s.destroy();
server.close();
