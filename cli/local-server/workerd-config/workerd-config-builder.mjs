// A short-lived Node process that turns a runtime's Miniflare options into workerd's
// configuration (Cap'n Proto bytes) and the command line Miniflare would start workerd with, and
// starts nothing: the supervisor (runtime.mjs) starts each workerd itself with those bytes on its
// stdin. Loading Miniflare takes a Node process from ~40 to ~160 MB resident; here it is loaded
// once for the few configurations a server needs (the host's, the runners' one), and the process
// ends as soon as the supervisor has them (it closes the channel), so no Node process stays beside
// the runtimes only to hold Miniflare (issue #43).
//
// Messages in:  { build: id, options, v8Flags, tmpdir }  options: Miniflare (V4-style) options,
//                                                 plain data; tmpdir: Miniflare's temporary folder
// Messages out: { id, command, args, config }     config: the bytes (a Uint8Array: the channel
//                                                  uses Node's "advanced" serialization)
//               { id, error }
//
// How the bytes are had: Miniflare serializes the configuration and writes it to the stdin of the
// workerd it spawns; `child_process.spawn` is replaced here, for workerd only, by a stand-in whose
// stdin keeps what is written. The stand-in never reports a socket, so Miniflare's `ready` never
// settles and nothing of it is used further. Miniflare's loopback server is created unbound (its
// `listen` binds nothing): the runtimes get no loopback server at all (runtime.mjs).
//
// Miniflare's temporary folder: Miniflare puts disk services there that workerd's configuration
// names (the Cache API's storage) and removes it as its process exits. TMPDIR is set by the
// supervisor to a folder inside its private socket folder, and the removal is skipped (the exit
// hooks are dropped before exiting): the folder lives until the server's socket folder is removed.
// A build may name a temporary folder of its own (runtime-config.mjs builds in a folder of its own).
//
// Miniflare's proxy secret (16 random bytes Miniflare makes as it loads and binds to its entry
// Worker): made here as the template's slot (config-template.mjs PROXY_SLOT), so that a
// configuration can be kept without it and each launch puts fresh bytes there
// (runtime-config.mjs). A configuration that does not hold the slot once is never kept.
import childProcess from "node:child_process";
import crypto from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import { createRequire } from "node:module";
import { PassThrough, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

// The Miniflare that wrangler (a peer dependency of this package) brings, wherever npm placed it.
const require = createRequire(import.meta.url);
const wranglerMain = require.resolve("wrangler/package.json");
const miniflarePath = createRequire(wranglerMain).resolve("miniflare");
const { PROXY_SLOT } = await import("./config-template.mjs");
const randomBytes = crypto.randomBytes;
let proxySlotGiven = false;
crypto.randomBytes = /** @type {typeof randomBytes} */ (
  (/** @type {any[]} */ ...args) => {
    if (!proxySlotGiven && args.length === 1 && args[0] === 16) {
      proxySlotGiven = true;
      return Buffer.from(PROXY_SLOT);
    }
    return /** @type {any} */ (randomBytes)(...args);
  }
);
const { Miniflare, Log, LogLevel, convertV4MiniflareOptions } = await import(
  pathToFileURL(miniflarePath).href
).finally(() => {
  crypto.randomBytes = randomBytes;
});

/** @type {((spawned: { command: string, args: string[], config: Buffer }) => void) | undefined} */
let capture;
const spawn = childProcess.spawn;
childProcess.spawn = /** @type {typeof spawn} */ (
  (/** @type {any[]} */ ...args) => {
    if (!/workerd/.test(String(args[0]))) return /** @type {any} */ (spawn)(...args);
    return standIn(String(args[0]), /** @type {string[]} */ (args[1]));
  }
);

/**
 * A stand-in for workerd's process: keeps the configuration written to its stdin.
 * @param {string} command
 * @param {string[]} args
 */
function standIn(command, args) {
  /** @type {Buffer[]} */
  const chunks = [];
  const child = /** @type {any} */ (new EventEmitter());
  const stdin = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
    final(done) {
      capture?.({ command, args, config: Buffer.concat(chunks) });
      done();
    },
  });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  Object.assign(child, {
    pid: 0,
    stdin,
    stdout,
    stderr,
    stdio: [stdin, stdout, stderr, new PassThrough()],
    kill: () => {
      setImmediate(() => child.emit("exit", null, "SIGKILL"));
      return true;
    },
  });
  return child;
}

// Miniflare's loopback server: created, never bound (see the header).
const createServer = http.createServer;
http.createServer = /** @type {typeof createServer} */ (
  (/** @type {any[]} */ ...args) => {
    const server = /** @type {any} */ (createServer)(...args);
    server.listen = (/** @type {any[]} */ ...listenArgs) => {
      const done = listenArgs.find((arg) => typeof arg === "function");
      setImmediate(() => {
        done?.();
        server.emit("listening");
      });
      return server;
    };
    server.address = () => ({ address: "127.0.0.1", family: "IPv4", port: 0 });
    server.close = (/** @type {(() => void) | undefined} */ done) => {
      setImmediate(() => done?.());
      return server;
    };
    return server;
  }
);

const serverFlags = process.env.MINIFLARE_WORKERD_V8_FLAGS ?? "";
const serverTmpdir = process.env.TMPDIR;
let building = Promise.resolve();

/**
 * Builds one configuration (after any build under way: the capture is then unambiguous).
 * @param {string} id
 * @param {Record<string, unknown>} options
 * @param {string} v8Flags - the runtime's V8 flags, space-separated (Miniflare reads them from
 *   the environment while it builds)
 * @param {string | undefined} tmpdir - Miniflare's temporary folder for this build (read from
 *   the environment too)
 */
function build(id, options, v8Flags, tmpdir) {
  building = building.then(async () => {
    try {
      process.env.MINIFLARE_WORKERD_V8_FLAGS = v8Flags;
      if (tmpdir) process.env.TMPDIR = tmpdir;
      const log = new Log(LogLevel.WARN);
      const spawned = await new Promise((resolve, reject) => {
        capture = resolve;
        const mf = new Miniflare(
          convertV4MiniflareOptions({
            ...options,
            log,
            logRequests: false,
            handleStructuredLogs: () => {},
          }),
        );
        mf.ready.catch(reject);
      });
      process.send?.({ id, ...spawned, config: new Uint8Array(spawned.config) });
    } catch (error) {
      process.send?.({
        id,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    } finally {
      capture = undefined;
      process.env.MINIFLARE_WORKERD_V8_FLAGS = serverFlags;
      if (serverTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = serverTmpdir;
    }
  });
}

/** Ends the process, leaving Miniflare's temporary folders in place (see the header). */
function end() {
  process.removeAllListeners("exit");
  process.exit(0);
}

process.on("disconnect", end);
process.on("SIGTERM", end);
process.on("message", (/** @type {any} */ m) => {
  if (typeof m?.build === "string")
    build(
      m.build,
      m.options,
      String(m.v8Flags ?? ""),
      typeof m.tmpdir === "string" ? m.tmpdir : undefined,
    );
});
