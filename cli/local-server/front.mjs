/**
 * The `npm start` front: a Node HTTP server on the public port. It reads each request body
 * completely first (at most {@link MAX_BODY_BYTES}, within {@link BODY_TIMEOUT_MS}: a slow or
 * oversized upload gets 408/413 here and never holds a runtime), then passes the request (method,
 * path, Host and all other headers unchanged) to the active runtime and streams its answer back,
 * event streams included. The runtime behind it can be swapped at any time; a request cut off
 * by a swap gets a clear error (cut-off-reply.mjs), also when its event stream had begun.
 */
import { Agent, createServer, request } from "node:http";
import { connect } from "node:net";
import { cutOffMessage, jsonRpcIds, replyCutOff, replyFrontError } from "./cut-off-reply.mjs";

/**
 * The largest request body passed on. Every route of the product takes far less (MCP messages
 * at most 4 MiB, the search form 64 KiB); anything larger is refused before a runtime sees it.
 */
export const MAX_BODY_BYTES = 16 * 1_048_576;
/**
 * Time allowed for a request's body once its headers arrived. Clients are on the same machine
 * (the front listens on 127.0.0.1): even a 16 MiB body takes milliseconds.
 */
export const BODY_TIMEOUT_MS = 10_000;
/** Time allowed for a request's headers (Node's own default is a minute). */
const HEADERS_TIMEOUT_MS = 10_000;
// What a runtime's HTTP stack answers (HTTP 500, text/plain) for a request whose Worker died.
const LOST = "Error: Network connection lost.";
/**
 * An answer that is not an event stream is held whole up to this size before it goes out, so a
 * runtime lost mid-answer still gets the client a clear 503 (4 MiB: above every JSON answer the
 * product's result limits allow; a larger answer streams as it comes).
 */
const MAX_HELD_ANSWER_BYTES = 4 * 1_048_576;
/** Request headers describing the body as sent; the front sends it whole, with its length. */
const BODY_FRAMING = new Set(["content-length", "transfer-encoding"]);

/**
 * @typedef {import("./runtime.mjs").Runtime} Runtime
 * @typedef {{ runtime: Runtime, cutOff: (reason: string) => void }} InFlight
 */

/**
 * Reads a request's body whole, or settles with why not.
 * @param {import("node:http").IncomingMessage} req
 * @param {number} maxBytes
 * @param {number} timeoutMs
 * @returns {Promise<{ body: Buffer } | { refused: 408 | 413 } | { gone: true }>}
 */
function readBody(req, maxBytes, timeoutMs) {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > maxBytes) return resolve({ refused: 413 });
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const timer = setTimeout(() => finish({ refused: 408 }), timeoutMs);
    /** @param {{ body: Buffer } | { refused: 408 | 413 } | { gone: true }} result */
    const finish = (result) => {
      clearTimeout(timer);
      req.removeAllListeners("data");
      resolve(result);
    };
    req.on("data", (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ refused: 413 });
      chunks.push(chunk);
    });
    req.on("end", () => finish({ body: Buffer.concat(chunks) }));
    req.on("error", () => finish({ gone: true }));
    req.on("close", () => {
      if (!req.complete) finish({ gone: true });
    });
  });
}

/**
 * Creates the front. `target()` resolves to the runtime that should serve now (it waits while a
 * replacement is being promoted), or null when none will come (stopping).
 * @param {object} options
 * @param {() => Promise<Runtime | null>} options.target
 * @param {(runtime: Runtime) => void} options.onLost - called when the runtime's HTTP stack
 *   reports that its Worker went away under a request
 * @param {(reason: string) => string} [options.message] - text for cut-off requests
 * @param {number} [options.maxBodyBytes] - default {@link MAX_BODY_BYTES}
 * @param {number} [options.bodyTimeoutMs] - default {@link BODY_TIMEOUT_MS}
 */
export function createFront({
  target,
  onLost,
  message = cutOffMessage,
  maxBodyBytes = MAX_BODY_BYTES,
  bodyTimeoutMs = BODY_TIMEOUT_MS,
}) {
  /** @type {Set<InFlight>} */
  const inFlight = new Set();
  /** @type {WeakMap<Runtime, Agent>} */
  const agents = new WeakMap();
  const agentOf = (/** @type {Runtime} */ runtime) => {
    let agent = agents.get(runtime);
    if (!agent) agents.set(runtime, (agent = new Agent({ keepAlive: true })));
    return agent;
  };

  // No Nagle delay on either side: requests and answers are small and latency is what counts.
  const server = createServer({ noDelay: true }, async (req, res) => {
    const read = await readBody(req, maxBodyBytes, bodyTimeoutMs);
    if ("gone" in read) return;
    if ("refused" in read) {
      replyFrontError(
        res,
        read.refused,
        read.refused === 413
          ? {
              code: "body_too_large",
              message: `The request body is over ${maxBodyBytes} bytes.`,
              fix: "Send less per request (every route of this server takes at most 4 MiB).",
            }
          : {
              code: "body_timeout",
              message: `The request body did not arrive within ${bodyTimeoutMs / 1000} s.`,
              fix: "Send the whole body at once; the server reads it before serving the request.",
            },
      );
      // The rest of a refused body is not read: close the connection after the answer.
      res.shouldKeepAlive = false;
      return;
    }
    const body = read.body;
    const runtime = await target();
    if (!runtime) {
      replyCutOff(res, [], "the server is stopping");
      return;
    }
    /** @type {import("node:http").ClientRequest | undefined} */
    let upstream;
    let ended = false;
    /** @type {string | undefined} the answer's content type, once its headers are out */
    let answerType;
    /** @type {InFlight} */
    const entry = {
      runtime,
      cutOff: (reason) => {
        if (ended) return;
        ended = true;
        inFlight.delete(entry);
        upstream?.destroy();
        replyCutOff(res, jsonRpcIds(body), message(reason), answerType);
      },
    };
    inFlight.add(entry);
    const done = () => {
      ended = true;
      inFlight.delete(entry);
    };
    const lost = () => entry.cutOff(runtime.killedBecause ?? "its connection broke");
    /** @type {string[]} */
    const headers = [];
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2)
      if (!BODY_FRAMING.has(String(raw[i]).toLowerCase()))
        headers.push(String(raw[i]), String(raw[i + 1]));
    if (body.length > 0 || !["GET", "HEAD"].includes(req.method ?? "GET"))
      headers.push("Content-Length", String(body.length));
    upstream = request({
      host: "127.0.0.1",
      port: runtime.port,
      method: req.method,
      path: req.url,
      headers,
      agent: agentOf(runtime),
    });
    // No Nagle delay toward the runtime either: the agent's sockets leave it on.
    upstream.on("socket", (socket) => socket.setNoDelay(true));
    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      const type = String(answer.headers["content-type"] ?? "");
      if (!type.startsWith("text/event-stream")) {
        holdAnswer(answer, status);
        return;
      }
      res.writeHead(status, answer.statusMessage, answer.rawHeaders);
      answerType = type;
      // An event stream's client waits for the headers.
      res.flushHeaders();
      // Not piped with its end: an answer cut short (the runtime died mid-stream) must end with
      // the clear error, not as if it had finished.
      answer.pipe(res, { end: false });
      answer.on("close", () => {
        if (ended) return;
        if (!answer.complete) return lost();
        res.end();
        done();
      });
      answer.on("error", lost);
    });
    /**
     * Passes on an answer that is not an event stream only once it is whole (up to
     * MAX_HELD_ANSWER_BYTES; past that it streams): a runtime that dies after its headers but
     * before its body's end then still gets the client a clear 503, where headers already sent
     * would leave only a cut connection (seen in e2e heal: 1 run in 4 ended "terminated").
     * @param {import("node:http").IncomingMessage} answer
     * @param {number} status
     */
    const holdAnswer = (answer, status) => {
      /** @type {Buffer[]} */
      const held = [];
      let size = 0;
      let streaming = false;
      const startStreaming = () => {
        streaming = true;
        res.writeHead(status, answer.statusMessage, answer.rawHeaders);
        answerType = String(answer.headers["content-type"] ?? "");
        for (const chunk of held.splice(0)) res.write(chunk);
      };
      answer.on("data", (chunk) => {
        if (ended) return;
        if (!streaming && size + chunk.length <= MAX_HELD_ANSWER_BYTES) {
          held.push(chunk);
          size += chunk.length;
          return;
        }
        if (!streaming) startStreaming();
        // Backpressure: a slow client pauses the runtime's answer rather than filling memory.
        if (!res.write(chunk)) {
          answer.pause();
          res.once("drain", () => answer.resume());
        }
      });
      answer.on("close", () => {
        if (ended) return;
        if (!answer.complete) return lost();
        // Maybe the runtime's own answer for a request whose Worker died: a clear cut-off instead.
        if (
          !streaming &&
          status >= 500 &&
          String(answer.headers["content-type"] ?? "").startsWith("text/plain") &&
          Buffer.concat(held).toString().startsWith(LOST)
        ) {
          onLost(runtime);
          return entry.cutOff(runtime.killedBecause ?? "it crashed");
        }
        if (!streaming) startStreaming();
        res.end();
        done();
      });
      answer.on("error", lost);
    };
    upstream.on("error", lost);
    // A client that goes away stops its request in the runtime too.
    res.on("close", () => {
      if (!ended) {
        done();
        upstream?.destroy();
      }
    });
    upstream.end(body);
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Bodies are timed by readBody; answers (event streams) may last as long as they need.
  server.requestTimeout = 0;

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
