/**
 * The `npm start` front: a Node HTTP server on the public port that passes every request, as
 * received, to the active runtime (streaming both ways, so event streams and large bodies work;
 * method, path, Host and all other headers unchanged) and its answer back. The runtime behind it
 * can be swapped at any time; requests cut off by a swap get a clear error (cut-off-reply.mjs).
 */
import { Agent, createServer, request } from "node:http";
import { connect } from "node:net";
import { cutOffMessage, jsonRpcIds, replyCutOff } from "./cut-off-reply.mjs";

// Enough of a request body to read a JSON-RPC id (MCP messages are small; the body still goes on
// to the runtime in full).
const HEAD_BYTES = 64 * 1024;
// What wrangler's proxy answers (HTTP 500, text/plain) for a request whose workerd died.
const LOST = "Error: Network connection lost.";

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 * @typedef {{ runtime: Runtime, cutOff: (reason: string) => void }} InFlight
 */

/**
 * Creates the front. `target()` resolves to the runtime that should serve now (it waits while a
 * replacement is being promoted), or null when none will come (stopping).
 * @param {object} options
 * @param {() => Promise<Runtime | null>} options.target
 * @param {(runtime: Runtime) => void} options.onLost - called when wrangler reports that the
 *   runtime's workerd went away under a request
 * @param {(reason: string) => string} [options.message] - text for cut-off requests
 */
export function createFront({ target, onLost, message = cutOffMessage }) {
  /** @type {Set<InFlight>} */
  const inFlight = new Set();
  /** @type {WeakMap<Runtime, Agent>} */
  const agents = new WeakMap();
  const agentOf = (/** @type {Runtime} */ runtime) => {
    let agent = agents.get(runtime);
    if (!agent) agents.set(runtime, (agent = new Agent({ keepAlive: true })));
    return agent;
  };

  const server = createServer(async (req, res) => {
    /** @type {Buffer[]} */
    const head = [];
    let headSize = 0;
    /** @type {import("node:http").ClientRequest | undefined} */
    let upstream;
    let ended = false;
    req.on("data", (chunk) => {
      if (headSize < HEAD_BYTES) {
        head.push(chunk);
        headSize += chunk.length;
      }
    });
    req.pause();
    const runtime = await target();
    if (!runtime) {
      replyCutOff(res, [], "the server is stopping");
      return;
    }
    /** @type {InFlight} */
    const entry = {
      runtime,
      cutOff: (reason) => {
        if (ended) return;
        ended = true;
        inFlight.delete(entry);
        upstream?.destroy();
        replyCutOff(res, jsonRpcIds(Buffer.concat(head)), message(reason));
      },
    };
    inFlight.add(entry);
    const done = () => {
      ended = true;
      inFlight.delete(entry);
    };
    upstream = request({
      host: "127.0.0.1",
      port: runtime.port,
      method: req.method,
      path: req.url,
      headers: req.rawHeaders,
      agent: agentOf(runtime),
    });
    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      if (status >= 500 && (answer.headers["content-type"] ?? "").startsWith("text/plain")) {
        // Maybe wrangler's own answer for a request whose workerd died: read it to know.
        /** @type {Buffer[]} */
        const chunks = [];
        answer.on("data", (chunk) => chunks.push(chunk));
        answer.on("error", () => entry.cutOff(runtime.killedBecause ?? "its connection broke"));
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          if (body.toString().startsWith(LOST)) {
            onLost(runtime);
            entry.cutOff(runtime.killedBecause ?? "it crashed");
            return;
          }
          res.writeHead(status, answer.statusMessage, answer.rawHeaders);
          res.end(body);
          done();
        });
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      res.flushHeaders();
      answer.pipe(res);
      answer.on("end", done);
      answer.on("error", () => entry.cutOff(runtime.killedBecause ?? "its connection broke"));
    });
    upstream.on("error", () => entry.cutOff(runtime.killedBecause ?? "its connection broke"));
    // A client that goes away stops its request in the runtime too.
    res.on("close", () => {
      if (!ended) {
        done();
        upstream?.destroy();
      }
    });
    req.pipe(upstream);
    req.resume();
  });

  // WebSocket and other upgrades: a byte pipe to the runtime, cut with it.
  server.on("upgrade", async (req, socket, rest) => {
    const runtime = await target();
    if (!runtime) return socket.destroy();
    const to = connect(runtime.port, "127.0.0.1", () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      to.write(lines.join("\r\n") + "\r\n\r\n");
      to.write(rest);
      socket.pipe(to).pipe(socket);
    });
    /** @type {InFlight} */
    const entry = { runtime, cutOff: () => (to.destroy(), socket.destroy()) };
    inFlight.add(entry);
    const close = () => {
      inFlight.delete(entry);
      to.destroy();
      socket.destroy();
    };
    to.on("error", close).on("close", close);
    socket.on("error", close).on("close", close);
  });

  return {
    server,
    /**
     * Fails every request still being served by `runtime` with `reason`.
     * @param {Runtime} runtime
     * @param {string} reason
     */
    cutOff(runtime, reason) {
      for (const entry of inFlight) if (entry.runtime === runtime) entry.cutOff(reason);
      agents.get(runtime)?.destroy();
    },
    /** How many requests are being served. */
    inFlightCount: () => inFlight.size,
  };
}
