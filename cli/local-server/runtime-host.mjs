// The one Node process that holds every local runtime of a server (the host runtime, its standby,
// the sandbox runners), started by the supervisor (runtime.mjs) in a process group of its own with
// an IPC channel. Each runtime is a workerd process started through Miniflare; one Node process
// for all of them instead of one each saves ~145 MB of resident memory per runtime (Miniflare's
// own code, loaded once) and the start-up work of loading it again.
//
// Messages in:  { start: id, message }  start a runtime from its Miniflare options (plain data:
//                                       settings and secrets travel in memory, never in a file
//                                       or a process environment)
//               { kill: id }            end one runtime now: SIGKILL its workerd (a blocked
//                                       thread handles no gentler signal), then dispose
// Messages out: { id, ready: { socket, pid } }, { id, line }, { id, exited: reason }
//
// Argument: the server's private socket folder (socket-folder.mjs). Every socket a runtime
// listens on is a Unix socket there, none a loopback TCP port (issue #40): a port is open to
// every process on the machine, and one freed by a crashed workerd can be taken by another user
// before the supervisor learns of the exit, who then receives the cluster secret and the
// clients' Authorization headers that the front and the supervisor send. Miniflare takes a Unix
// socket for a Worker's direct socket (`unix:<path>`; the host's, named here) but not for its
// own entry socket and loopback server: workerd's arguments for those two are rewritten as it is
// spawned (spawn below), and the loopback server listens on its file (closedLoopback). A
// runtime's `socket` (ready) is the file it serves HTTP on: the host's direct socket, or a
// runner's entry socket (its `/health` and `/retire`).
//
// A workerd that dies on its own is not restarted here (Miniflare would, and a restarted runtime
// was seen to never answer again): the runtime is reported exited and the supervisor replaces it.
// The process ends, with every workerd it started, when the supervisor goes away (the channel
// closes) or on SIGTERM.
//
// Miniflare's loopback server (one per runtime, in this process) is where workerd
// sends what Miniflare handles in Node: log lines (`/core/log`), pretty error pages, files written
// to its temporary folder, browser sessions, dev registry look-ups. Anything on the machine reaches
// it, and it checks no caller (a forged "runner 1 is replaced because …" line appeared in the
// server's output). None of it is used by this server's runtimes (request lines are the front's,
// errors the Worker's own, console output comes on workerd's stdout, no email, browser or dev
// registry binding), so each loopback server is created here answering 403 to every request and
// upgrade (closedLoopback below), on a Unix socket in the private folder.
//
// Diagnostics only: WORKERD_INSPECTOR_PORT=<port> opens workerd's V8 inspector (Chrome DevTools
// Protocol; `/json/list` names each Worker's socket) on 127.0.0.1 for every runtime started, the
// first on <port>, the next on <port>+1 and so on (a replacement takes the next port); each
// runtime prints its address. For finding leaks and stalls (heap snapshots, CPU profiles): it
// lets anyone on this machine run code in the runtimes, so never set it on a shared machine.
import childProcess from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { runtimeSockets } from "./socket-folder.mjs";
import { unixArguments } from "./workerd-arguments.mjs";
import { withFlags } from "./v8-flags.mjs";

// The Miniflare that wrangler (a peer dependency of this package) brings, wherever npm placed it.
const require = createRequire(import.meta.url);
const wranglerMain = require.resolve("wrangler/package.json");
const miniflarePath = createRequire(wranglerMain).resolve("miniflare");
const { Miniflare, Log, LogLevel, convertV4MiniflareOptions } = await import(
  pathToFileURL(miniflarePath).href
);

/**
 * @typedef {object} RuntimeMessage
 * @property {Record<string, unknown>} options - Miniflare (V4-style) options, plain data
 * @property {{ worker: string } | undefined} [direct] - the Worker given a direct socket (its
 *   default entrypoint, not Miniflare's entry Worker) in the private folder, which this runtime
 *   reports as its `socket` (the host); without, its entry socket is reported (runners)
 * @property {string[]} [v8Flags] - V8 flags for this runtime's workerd only, after the server's
 *   own (a flag the user set in MINIFLARE_WORKERD_V8_FLAGS keeps the user's value)
 */

/**
 * @typedef {object} Held
 * @property {import("miniflare").Miniflare} [mf]
 * @property {import("node:child_process").ChildProcess} [workerd]
 * @property {boolean} ended
 */

/** @type {Map<string, Held>} */
const held = new Map();

/** The server's private socket folder (the argument; see the header). */
const folder = process.argv[2] ?? "";
if (folder === "") throw new Error("runtime-host.mjs: the private socket folder is not given");

/** The V8 flags every runtime of this server gets (the user's and the project's, serve.mjs). */
const serverFlags = process.env.MINIFLARE_WORKERD_V8_FLAGS ?? "";

// Miniflare does not say which process it started: the workerd spawned while an instance is
// being created is that instance's. Creations run one at a time, so the capture is unambiguous.
/** @type {((child: import("node:child_process").ChildProcess) => void) | undefined} */
let capture;
/**
 * The sockets of the runtime being created (its workerd's arguments and loopback server).
 * @type {import("./socket-folder.mjs").RuntimeSockets | undefined}
 */
let creatingSockets;
const spawn = childProcess.spawn;
childProcess.spawn = /** @type {typeof spawn} */ (
  (/** @type {any[]} */ ...args) => {
    const workerd = /workerd/.test(String(args[0]));
    if (workerd && creatingSockets && Array.isArray(args[1]))
      args[1] = unixArguments(args[1], creatingSockets);
    const child = /** @type {any} */ (spawn)(...args);
    if (workerd) capture?.(child);
    return child;
  }
);

// Miniflare creates its loopback server with its private `#handleLoopback` as the handler (a
// function's name is the private field's): that server is created closed instead (see the
// header). Counted, so a Miniflare that creates it otherwise is noticed (`start` says so).
let loopbacksClosed = 0;
const createServer = http.createServer;
http.createServer = /** @type {typeof createServer} */ (
  (/** @type {any[]} */ ...args) => {
    const handler = args.find((arg) => typeof arg === "function");
    if (handler?.name !== "#handleLoopback") return /** @type {any} */ (createServer)(...args);
    loopbacksClosed++;
    return closedLoopback();
  }
);

/**
 * An HTTP server that answers every request 403 and ends every upgrade: Miniflare's loopback
 * server as this server needs it. Its `on("upgrade", …)` keeps Miniflare's own handler off.
 */
function closedLoopback() {
  const server = createServer((_req, res) => {
    res.writeHead(403, { "content-type": "text/plain", connection: "close" });
    res.end("Not used by this server.\n");
  });
  const file = creatingSockets?.loopback;
  if (!file) throw new Error("Miniflare made a loopback server outside a runtime's creation");
  // On the runtime's file, not the 127.0.0.1 port Miniflare asks for. Miniflare reads a port
  // from `address()` for workerd's arguments, which are rewritten to the file
  // (workerd-arguments.mjs).
  const listen = server.listen.bind(server);
  server.listen = /** @type {typeof server.listen} */ (
    (/** @type {any[]} */ ...args) => {
      const done = args.find((arg) => typeof arg === "function");
      return listen(file, done);
    }
  );
  server.address = () => ({ address: "127.0.0.1", family: "IPv4", port: 0 });
  const on = server.on.bind(server);
  server.on = /** @type {typeof server.on} */ (
    (/** @type {string} */ event, /** @type {(...args: any[]) => void} */ listener) =>
      on(event, event === "upgrade" ? (_req, socket) => socket.destroy() : listener)
  );
  return server;
}

/** @param {Record<string, unknown>} message */
const send = (message) => {
  if (process.connected) process.send?.(message);
};

/**
 * Ends one runtime: its workerd first (SIGKILL), then Miniflare's side of it.
 * @param {string} id
 * @param {string} reason - reported to the supervisor
 */
async function end(id, reason) {
  const runtime = held.get(id);
  if (!runtime || runtime.ended) return;
  runtime.ended = true;
  runtime.workerd?.kill("SIGKILL");
  try {
    await runtime.mf?.dispose();
  } catch {
    // already gone
  }
  runtimeSockets(folder, id).clear();
  held.delete(id);
  send({ id, exited: reason });
}

let creating = Promise.resolve();
let warnedLoopback = false;

const inspectorBase = inspectorPortSetting(process.env.WORKERD_INSPECTOR_PORT);
let inspectors = 0;

/**
 * The first inspector port from WORKERD_INSPECTOR_PORT (see the header), or undefined when unset.
 * @param {string | undefined} setting
 * @returns {number | undefined}
 */
function inspectorPortSetting(setting) {
  if (setting === undefined || setting.trim() === "") return undefined;
  const port = Number(setting.trim());
  if (Number.isInteger(port) && port >= 1024 && port <= 65_000) return port;
  console.error(
    `WORKERD_INSPECTOR_PORT: "${setting}" is not a port from 1024 to 65000; the inspector stays off.\n  Fix: WORKERD_INSPECTOR_PORT=9230 (runtimes then take 9230, 9231, …).`,
  );
  return undefined;
}

/**
 * Starts one runtime (after any creation under way).
 * @param {string} id
 * @param {RuntimeMessage} message
 */
function start(id, message) {
  /** @type {Held} */
  const runtime = { ended: false };
  held.set(id, runtime);
  const line = (/** @type {string} */ text) => send({ id, line: text });
  // Miniflare prints every line through its log's `log(text)`: each goes to the supervisor, named.
  const log = new Log(LogLevel.INFO);
  log.log = (/** @type {string} */ text) => {
    for (const part of text.split("\n")) line(part);
  };
  creating = creating.then(async () => {
    if (runtime.ended) return;
    capture = (child) => {
      runtime.workerd ??= child;
      // A workerd that exits on its own (a crash, an out-of-memory kill) ends the runtime.
      child.once("exit", () => void end(id, "it exited"));
    };
    const sockets = runtimeSockets(folder, id);
    creatingSockets = sockets;
    const inspectorPort = inspectorBase === undefined ? undefined : inspectorBase + inspectors++;
    if (inspectorPort !== undefined)
      line(`V8 inspector: http://127.0.0.1:${inspectorPort}/json/list`);
    // Miniflare reads its V8 flags from the environment while it builds the workerd config, and
    // creations run one at a time: this runtime's flags are set for its creation only.
    process.env.MINIFLARE_WORKERD_V8_FLAGS = withFlags(serverFlags, message.v8Flags ?? []);
    const closedBefore = loopbacksClosed;
    try {
      const mf = new Miniflare(
        convertV4MiniflareOptions({
          ...withDirectSocket(message, sockets.direct.host),
          ...(inspectorPort === undefined ? {} : { inspectorPort }),
          log,
          // Request lines (LOG_REQUESTS) are the front's: Miniflare's come from its entry
          // Worker, which requests no longer pass, each by a loopback request to this process.
          logRequests: false,
          handleStructuredLogs: (/** @type {{ message: string }} */ { message: text }) =>
            line(text),
          unsafeHandleRuntimeRestart: () => {
            line("The Workers runtime crashed unexpectedly; this runtime ends.");
            void end(id, "it crashed");
          },
        }),
      );
      runtime.mf = mf;
      // Its URL says 127.0.0.1:0: the entry socket is the file (workerd-arguments.mjs).
      await mf.ready;
      process.env.MINIFLARE_WORKERD_V8_FLAGS = serverFlags;
      if (loopbacksClosed === closedBefore && !warnedLoopback) {
        warnedLoopback = true;
        line(
          'Note: Miniflare\'s loopback server was not recognised (a newer Miniflare?), so it stays open to local processes (docs/security.md, "Who can reach what").',
        );
      }
      capture = undefined;
      creatingSockets = undefined;
      const socket = message.direct ? sockets.direct.file : sockets.entry;
      if (!runtime.ended) send({ id, ready: { socket, pid: runtime.workerd?.pid } });
    } catch (error) {
      process.env.MINIFLARE_WORKERD_V8_FLAGS = serverFlags;
      capture = undefined;
      creatingSockets = undefined;
      line(error instanceof Error ? (error.stack ?? error.message) : String(error));
      await end(id, "it did not start");
    }
  });
}

/**
 * The message's options with a direct socket at `host` for its `direct` Worker (the host), added
 * to any the Worker declares (a runner's RPC socket).
 * @param {RuntimeMessage} message
 * @param {string} host - `unix:<path>`
 * @returns {Record<string, unknown>}
 */
function withDirectSocket(message, host) {
  const direct = message.direct;
  if (!direct) return message.options;
  const workers = /** @type {any[]} */ (message.options.workers ?? []);
  return {
    ...message.options,
    workers: workers.map((worker) =>
      worker.name === direct.worker
        ? {
            ...worker,
            unsafeDirectSockets: [...(worker.unsafeDirectSockets ?? []), { host, port: 0 }],
          }
        : worker,
    ),
  };
}

let stopping = false;
async function stopAll() {
  if (stopping) return;
  stopping = true;
  const timer = setTimeout(() => process.exit(0), 3_000);
  timer.unref();
  await Promise.all([...held.keys()].map((id) => end(id, "the server is stopping")));
  process.exit(0);
}

process.on("disconnect", () => void stopAll());
process.on("SIGTERM", () => void stopAll());
process.on("SIGINT", () => void stopAll());
process.on("message", (/** @type {any} */ m) => {
  if (typeof m?.start === "string") start(m.start, m.message);
  else if (typeof m?.kill === "string") void end(m.kill, "it was ended");
});
send({ hello: true });
