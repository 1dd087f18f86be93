/**
 * The `npm start` front: a Node HTTP server on the public port. It reads each request body
 * completely first (at most {@link MAX_BODY_BYTES}, within {@link BODY_TIMEOUT_MS}: a slow or
 * oversized upload gets 408/413 here and never holds a runtime), then passes the request (method,
 * path, Host and all other headers unchanged) to the active runtime and streams its answer back,
 * event streams included. The runtime behind it can be swapped at any time; a request cut off
 * by a swap gets a clear error (cut-off-reply.mjs), also when its event stream had begun.
 *
 * Its parts: reading the body with its limits (request-body.mjs), one request's way to a runtime
 * and back (exchange.mjs), upgrades piped byte for byte (below), and the list of requests in
 * flight that a swap cuts off.
 */
import { Agent, STATUS_CODES, createServer } from "node:http";
import { connect } from "node:net";
import { CLUSTER_SECRET_HEADER, clusterSecret } from "./cluster-secret.mjs";
import { cutOffMessage, replyCutOff } from "./cut-off-reply.mjs";
import { Exchange, clientAddress } from "./exchange.mjs";
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, readBody, refuseBody } from "./request-body.mjs";

// The limits are part of the front's options (their defaults); tests and the e2e scripts read
// them here.
export { BODY_TIMEOUT_MS, MAX_BODY_BYTES };

/** How long a kept-alive connection to a runtime may sit unused (workerd's own bound is 5 s). */
const IDLE_MS = 4_000;
/** Time allowed for a request's headers (Node's own default is a minute). */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 * @typedef {import("./exchange.mjs").InFlight} InFlight
 */

/**
 * Creates the front. `target()` resolves to the runtime that should serve now (it waits while a
 * replacement is being promoted), or null when none will come (stopping).
 * @param {object} options
 * @param {() => Promise<Runtime | null>} options.target
 * @param {(reason: string) => string} [options.message] - text for cut-off requests
 * @param {number} [options.maxBodyBytes] - default {@link MAX_BODY_BYTES}
 * @param {number} [options.bodyTimeoutMs] - default {@link BODY_TIMEOUT_MS}
 * @param {(line: string) => void} [options.logRequest] - given a line per request once its
 *   answer has ended (`LOG_REQUESTS`)
 */
export function createFront({
  target,
  message = cutOffMessage,
  maxBodyBytes = MAX_BODY_BYTES,
  bodyTimeoutMs = BODY_TIMEOUT_MS,
  logRequest,
}) {
  /** @type {Set<InFlight>} */
  const inFlight = new Set();
  /** @type {WeakMap<Runtime, Agent>} */
  const agents = new WeakMap();
  const agentOf = (/** @type {Runtime} */ runtime) => {
    let agent = agents.get(runtime);
    // An idle connection is let go after 4 s, before workerd closes it at 5 s: a request sent
    // just as workerd closes one would meet a reset (exchange.mjs sends it again, once).
    if (!agent) agents.set(runtime, (agent = new Agent({ keepAlive: true, timeout: IDLE_MS })));
    return agent;
  };

  // No Nagle delay on either side: requests and answers are small and latency is what counts.
  const server = createServer({ noDelay: true }, async (req, res) => {
    if (logRequest) logWhenEnded(req, res, logRequest);
    const read = await readBody(req, maxBodyBytes, bodyTimeoutMs);
    if ("gone" in read) return;
    if ("refused" in read) return refuseBody(res, read.refused, { maxBodyBytes, bodyTimeoutMs });
    const runtime = await target();
    if (!runtime) return replyCutOff(res, [], "the server is stopping");
    new Exchange({ res, body: read.body, runtime, inFlight, message }).send(req, agentOf(runtime));
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Bodies are timed by readBody; answers (event streams) may last as long as they need.
  server.requestTimeout = 0;

  // WebSocket and other upgrades: a byte pipe to the runtime, cut with it.
  server.on("upgrade", async (req, socket, rest) => {
    const runtime = await target();
    if (!runtime) return socket.destroy();
    pipeUpgrade(req, socket, rest, runtime, inFlight);
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

/**
 * Gives `log` a line for the request once its answer has ended, as `wrangler dev` prints it:
 * `POST /mcp 200 OK (12ms)`. The path without its query, which may carry a token; an answer the
 * client did not wait for says so.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {(line: string) => void} log
 */
function logWhenEnded(req, res, log) {
  const started = performance.now();
  res.once("close", () => {
    const path = (req.url ?? "/").split("?")[0];
    const status = `${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ""}`.trim();
    const ms = Math.round(performance.now() - started);
    const gone = res.writableFinished ? "" : "; the client went away before its end";
    log(`${req.method} ${path} ${status} (${ms}ms${gone})`);
  });
}

/**
 * Joins an upgraded connection (WebSocket) to the runtime byte for byte: the request line and
 * headers as they came (but the client's address, set here), then both directions piped; cut off
 * with the runtime.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:stream").Duplex} socket - the client's connection
 * @param {Buffer} rest - bytes the client sent after its headers
 * @param {Runtime} runtime
 * @param {Set<InFlight>} inFlight
 */
function pipeUpgrade(req, socket, rest, runtime, inFlight) {
  const to = connect(runtime.port, "127.0.0.1", () => {
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      if (
        !["cf-connecting-ip", CLUSTER_SECRET_HEADER].includes(
          String(req.rawHeaders[i]).toLowerCase(),
        )
      )
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    // The client's address and the cluster secret, as for every other request (exchange.mjs).
    const address = clientAddress(req.socket.remoteAddress);
    if (address) lines.push(`CF-Connecting-IP: ${address}`);
    lines.push(`${CLUSTER_SECRET_HEADER}: ${clusterSecret}`);
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
}
