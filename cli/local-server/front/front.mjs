/**
 * The `npm start` front: a Node HTTP server on the public port. It reads each request body
 * completely first (at most its route's limit, within {@link BODY_TIMEOUT_MS}, and within the
 * memory budget all bodies share: a slow, oversized or untimely upload gets 408/413/503 here and
 * never holds a runtime), then passes the request (method, path, Host and all other end-to-end
 * headers unchanged; hop-by-hop ones dropped) to the active runtime's Unix socket and streams its
 * answer back, event streams included. A request with a body under a Host the Worker refuses,
 * or (with `MCP_API_KEY` set) without the key on a route the key protects, is refused from its
 * headers, before any byte of its body is read. The runtime behind it can be swapped at any
 * time; a request cut off by a swap gets a clear error (cut-off-reply.mjs), also when its event
 * stream had begun.
 *
 * Its parts: the Host rule it shares with the Worker (src/app/config/host-names.mjs), the key
 * check (front-api-key.mjs), what it knows of the routes (route-bodies.mjs), the memory budget
 * (body/budget.mjs), the bound on connections (connection-cap.mjs), reading the body with its
 * limits (request-body.mjs), one request's way to a runtime and back (exchange.mjs), upgrades
 * piped byte for byte once the runtime switched protocols (upgrade-pipe.mjs), and the list of
 * requests in flight that a swap cuts off.
 */
import {
  DEFAULT_ALLOWED_HOSTNAMES,
  hostnameAllowed,
  hostnameOf,
  malformedHostRefusal,
  unknownHostRefusal,
  wellFormedHost,
} from "../../../src/app/config/host-names.mjs";
import { createBodyBudget, DEFAULT_BODY_BUDGET_BYTES } from "./body/budget.mjs";
import { capConnections, DEFAULT_MAX_CONNECTIONS, tooManyConnections } from "./connection-cap.mjs";
import { tooManyCallerWaits, tooManyWaits, waitsLong } from "./long-wait.mjs";
import { cutOffMessage, jsonRpcIds, replyFrontError, replyNotServing } from "./cut-off-reply.mjs";
import { createPeerOwners } from "./callers/peer-owners.mjs";
import { callerOnceNamed } from "./callers/caller-wait.mjs";
import { createCutOffGate } from "./cut-off-gate.mjs";
import { Exchange } from "./exchange.mjs";
import { pipeUpgrade } from "./upgrade-pipe.mjs";
import { closeQueuedWithConnection, waitForTurn } from "./pipelined-requests.mjs";
import { apiKeyCheck } from "./front-api-key.mjs";
import { bridgeOnlyCheck } from "./bridge-only.mjs";
import { startIdleCollection } from "./body/idle-collection.mjs";
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, readBody, refuseBody } from "./request-body.mjs";
import { runtimeConnections } from "./runtime-connections.mjs";
import { bodyLimitOf, needsApiKey, pathOf } from "./route-bodies.mjs";
import { http } from "./node-http.mjs";

// Not `import … from "node:http"` (node-http.mjs).
const { STATUS_CODES, createServer } = http;

// The limits are part of the front's options (their defaults); tests and the e2e scripts read
// them here.
export { BODY_TIMEOUT_MS, DEFAULT_BODY_BUDGET_BYTES, DEFAULT_MAX_CONNECTIONS, MAX_BODY_BYTES };

/** Time allowed for a request's headers (Node's own default is a minute). */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Whether an upgrade may be piped: a GET without a body (`Content-Length` 0 or absent, no
 * `Transfer-Encoding`).
 * @param {import("node:http").IncomingMessage} req
 */
export function upgradeAllowed(req) {
  const length = req.headers["content-length"];
  return (
    req.method === "GET" &&
    req.headers["transfer-encoding"] === undefined &&
    (length === undefined || length.trim() === "0")
  );
}

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {import("./exchange.mjs").InFlight} InFlight
 */

/**
 * What `target()` resolves to when no runtime serves yet and one is coming: the request is
 * answered `503` "the server is starting; try again in a few seconds" (`Retry-After: 2`), as a
 * JSON-RPC error on the MCP endpoints (its id echoed), else `{ error: { code: "server_starting",
 * … } }`. An upgrade (WebSocket) is closed.
 * @typedef {{ starting: true }} Starting
 */

/**
 * Creates the front.
 *
 * `target()` says who serves a request whose body was read: a runtime (it may wait while a
 * replacement is promoted, or, bounded, for the first runtime to be ready); `{ starting: true }`
 * ({@link Starting}) when the first runtime is not ready yet (the request gets the "starting"
 * error, never "stopping"); or `null` only when none will come because the server is stopping
 * (`503` "the server is stopping").
 *
 * Security defaults: every body is bounded by its route's limit (route-bodies.mjs; at most
 * `maxBodyBytes`) and all bodies held at once by `bodyBudgetBytes`, counted as bytes arrive and
 * given back once it cannot be sent again (exchange.mjs) or the request ends in any other way
 * (refused, timed out, client gone, its connection closed while it waited behind another:
 * pipelined-requests.mjs). Answers held whole
 * count in it too, at most half of it (body/budget.mjs, exchange.mjs). A
 * request that carries a body is checked from its headers before any byte of the body is read,
 * as the Worker checks it, in the Worker's order: a `Host` not in `allowedHostnames` gets the
 * Worker's `403 forbidden_host` (the same rule: src/app/config/host-names.mjs), then, with
 * `apiKey`, a route the key protects without the key gets its `401`. The Worker checks both
 * again.
 * @param {object} options
 * @param {() => Promise<Runtime | Starting | null>} options.target
 * @param {(reason: string) => string} [options.message] - text for cut-off requests
 * @param {number} [options.maxBodyBytes] - the most any route's body may be (each route's own
 *   limit applies under it); default {@link MAX_BODY_BYTES}
 * @param {number} [options.bodyTimeoutMs] - default {@link BODY_TIMEOUT_MS}
 * @param {number} [options.bodyBudgetBytes] - the most all bodies held at once may be
 *   (`FRONT_BODY_BUDGET_MB`); default {@link DEFAULT_BODY_BUDGET_BYTES}
 * @param {string} [options.apiKey] - `MCP_API_KEY`, checked from the headers before a body is
 *   read (none: no check here)
 * @param {string} [options.bridgeSecret] - a `--stdio` launch's secret: every request and
 *   upgrade without it is refused first, from its headers (bridge-only.mjs)
 * @param {number} [options.maxConnections] - connections open at once (`FRONT_MAX_CONNECTIONS`;
 *   connection-cap.mjs); default {@link DEFAULT_MAX_CONNECTIONS}
 * @param {readonly string[]} [options.allowedHostnames] - the Worker's resolved
 *   `ALLOWED_HOSTNAMES`; default the Worker's default
 * @param {(line: string) => void} [options.logRequest] - given a line per request once its
 *   answer has ended (`LOG_REQUESTS`)
 * @param {{ holdMs?: number, max?: number }} [options.cutOffGate] - the bound on requests cut
 *   off after they were sent (cut-off-gate.mjs; tests shorten it)
 * @param {import("./callers/caller-wait.mjs").ConnectionCallers} [options.callers] - who is at
 *   the other end of a connection: the cut-off gate lets waiting requests in by turns of it
 *   (default: the local process that holds it, callers/peer-owners.mjs; a request waits for a
 *   look that is coming, callers/caller-wait.mjs); the connection bound gives each one its share
 *   (connection-cap.mjs)
 */
export function createFront({
  target,
  message = cutOffMessage,
  maxBodyBytes = MAX_BODY_BYTES,
  bodyTimeoutMs = BODY_TIMEOUT_MS,
  bodyBudgetBytes = DEFAULT_BODY_BUDGET_BYTES,
  apiKey,
  bridgeSecret,
  maxConnections = DEFAULT_MAX_CONNECTIONS,
  allowedHostnames = DEFAULT_ALLOWED_HOSTNAMES,
  logRequest,
  cutOffGate,
  callers,
}) {
  /** @type {Set<InFlight>} */
  const inFlight = new Set();
  /** @type {WeakMap<Runtime, import("./runtime-connections.mjs").RuntimeConnections>} */
  const pools = new WeakMap();
  const connectionsTo = (/** @type {Runtime} */ runtime) => {
    let pool = pools.get(runtime);
    if (!pool) pools.set(runtime, (pool = runtimeConnections(runtime.socket)));
    return pool;
  };
  const budget = createBodyBudget(bodyBudgetBytes);
  const gate = createCutOffGate(cutOffGate);
  // A request waiting as "unknown" takes its own caller's turn as soon as the look names it,
  // not at the gate's next event (up to a second away while only shares hold requests).
  // Once per batch: a look names up to 1,024 sockets at once (cut-off-gate.mjs recheckSoon).
  const owners = callers ?? createPeerOwners({ onKnown: gate.recheckSoon });
  // A client sends the same Host on every request: the last one found well formed is not
  // checked again (the URL parser in the check was ~1.5 % of the front's CPU per request).
  /** @type {string | undefined} */
  let wellFormed;
  const hostWellFormed = (/** @type {string} */ host) =>
    host === wellFormed || (wellFormedHost(host) && ((wellFormed = host), true));
  const checkKey = apiKey ? apiKeyCheck(apiKey) : undefined;
  const notBridge = bridgeSecret ? bridgeOnlyCheck(bridgeSecret) : undefined;

  // No Nagle delay on either side: requests and answers are small and latency is what counts.
  const server = createServer({ noDelay: true }, async (req, res) => {
    if (logRequest) logWhenEnded(req, res, logRequest);
    // A request pipelined behind others on its connection: served in its turn only.
    const turn = waitForTurn(res);
    if (turn) await turn;
    // A `--stdio` server's port is its bridge's alone, on every route (bridge-only.mjs).
    const stranger = notBridge?.(req);
    if (stranger) return replyFrontError(res, stranger.status, stranger.error, { jsonRpc: false });
    // A connection past the bound: told so at once, its body unread (connection-cap.mjs). One
    // held aside at the bound until its caller is known is told once that is decided.
    const over = connections.over(req.socket);
    if (over === true || (over !== false && (await over)))
      return replyFrontError(res, 503, tooManyConnections(maxConnections), {
        headers: { "retry-after": "1" },
      });
    // A Host that is no host name or address: workerd answers it a bare 500 before the Worker
    // runs (host-names.mjs). Told here what is wrong instead, with or without a body.
    const host = req.headers.host;
    if (host !== undefined && !hostWellFormed(host)) {
      const { status, ...error } = malformedHostRefusal(host);
      return replyFrontError(res, status, error, { jsonRpc: false });
    }
    // A target that is not a path (`GET http://elsewhere/mcp`, `CONNECT host:443`, `*`): the
    // front is no proxy, and workerd answered such a request a bare 500. Told here instead.
    if (!req.url?.startsWith("/"))
      return replyFrontError(
        res,
        400,
        {
          code: "invalid_request",
          message: `The request's target is not a path ("${String(req.url).slice(0, 60)}"): this server is not a proxy.`,
          fix: "Send the path only (e.g. POST /mcp), with the server's address in the Host header.",
        },
        { jsonRpc: false },
      );
    const path = pathOf(req.url);
    // Only a request that carries a body: one without costs nothing here, and the Worker's own
    // checks answer it (with its HTML page for a browser's navigation). Its Host first, as the
    // Worker checks it first (its DNS-rebinding guard): any name the Worker would refuse (not
    // only a non-local one: `*.workers.dev` and ALLOWED_HOSTNAMES pass there) is refused here
    // before the body, else a keyless client could make the front hold 4 MiB for a 403.
    if (hasBody(req)) {
      const hostname = hostnameOf(String(req.headers.host ?? ""));
      if (!hostnameAllowed(hostname, allowedHostnames)) {
        const { status, ...error } = unknownHostRefusal(hostname);
        return replyFrontError(res, status, error, { jsonRpc: false });
      }
      const refused = checkKey && needsApiKey(req.method, path) ? checkKey(req) : undefined;
      if (refused)
        return replyFrontError(res, refused.status, refused.error, {
          headers: refused.headers,
          jsonRpc: false,
        });
    }
    const hold = budget.hold();
    // The body's bytes are held until the request ends, however it ends.
    res.once("close", hold.release);
    const limit = Math.min(bodyLimitOf(path), maxBodyBytes);
    const read = await readBody(req, {
      maxBytes: limit,
      timeoutMs: bodyTimeoutMs,
      hold,
      // At the connection bound, the oldest body still arriving makes room (connection-cap.mjs).
      arriving: (makeRoom) => connections.reading(req.socket, makeRoom),
    });
    if ("gone" in read) return;
    if ("refused" in read)
      return refuseBody(res, read.refused, {
        maxBodyBytes: limit,
        bodyTimeoutMs,
        budgetBytes: bodyBudgetBytes,
        maxConnections,
        crowded: read.crowded,
      });
    // A request that waits long by design holds a place of the waits' share only: past it, it
    // is refused at once, so waits never take the places other clients need (long-wait.mjs).
    if (waitsLong(req, read.body)) {
      const giveBack = connections.waiting(req.socket);
      if (!giveBack)
        return replyFrontError(
          res,
          503,
          (giveBack === null ? tooManyCallerWaits : tooManyWaits)(maxConnections),
          {
            ids: jsonRpcIds(read.body),
            headers: { "retry-after": "1" },
            keepAlive: true,
          },
        );
      res.once("close", giveBack);
    }
    // A request whose client has gone costs the host nothing: it is not sent.
    if (res.closed) return;
    // While requests cut off after they were sent hold every place (or its caller has its share
    // of requests or bytes at the host), a request waits its turn here, by turns of caller, and
    // one whose client leaves meanwhile never reaches the host (cut-off-gate.mjs).
    // A request that may start a run waits there for its connection's caller first, if a look
    // for it is coming: the host places runs by it (callers/caller-wait.mjs).
    const socket = req.socket;
    const naming = callerOnceNamed(owners, socket, { method: req.method, due: gate.recheckSoon });
    const admitted = gate.admit(
      (drop) => {
        res.once("close", drop);
        return () => res.off("close", drop);
      },
      naming.caller,
      read.body.length,
    );
    const pass = admitted instanceof Promise ? await admitted : admitted;
    naming.stop();
    if (!pass) return;
    const runtime = await target();
    if (!runtime || "starting" in runtime || res.closed) pass.done();
    if (res.closed) return;
    if (!runtime) return replyNotServing(res, "stopping", read.body);
    if ("starting" in runtime) return replyNotServing(res, "starting", read.body);
    // Its caller as known now (a new connection's first look may have ended meanwhile; past its
    // wait, its user's key if the table showed its socket): the host places its runs by it, so
    // one local process cannot take every runner from another. Stopped, `caller()` always
    // names a key (callers/caller-wait.mjs).
    const caller = /** @type {string} */ (naming.caller());
    new Exchange({
      res,
      body: read.body,
      runtime,
      inFlight,
      message,
      budget,
      hold,
      pass,
      caller,
    }).send(req, connectionsTo(runtime));
  });
  // Each caller gets its share of the places and of the waits (connection-cap.mjs).
  const connections = capConnections(server, maxConnections, {
    callerOf: (socket) => owners.of(socket),
  });
  // A pipelined response gets "close" with its connection too (pipelined-requests.mjs).
  closeQueuedWithConnection(server);
  // Dead body buffers are freed only by a collection; after a burst nothing else triggers one.
  const collection = startIdleCollection({ held: budget.used });
  server.once("close", collection.stop);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Bodies are timed by readBody; answers (event streams) may last as long as they need.
  server.requestTimeout = 0;

  // WebSocket and other upgrades: a byte pipe to the runtime once it switched protocols, cut
  // with it; any other answer ends the connection (upgrade-pipe.mjs).
  server.on("upgrade", async (req, socket, rest) => {
    // An upgrade becomes a raw byte pipe past the body limits, the budget and the key check:
    // only a bodyless GET may ask for one (a WebSocket's handshake). Anything else with an
    // `Upgrade` header (a POST streaming 400 MiB to the host's search route) is refused here, as
    // is one whose Host is no host (workerd's bare 500 otherwise: host-names.mjs).
    if (
      notBridge?.(req) ||
      !upgradeAllowed(req) ||
      !hostWellFormed(req.headers.host ?? "localhost")
    ) {
      socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const over = connections.over(req.socket);
    if (over === true || (over !== false && (await over))) {
      socket.end(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
      );
      return;
    }
    const runtime = await target();
    if (!runtime || "starting" in runtime) return socket.destroy();
    pipeUpgrade(req, socket, rest, runtime, inFlight, owners.of(req.socket));
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
      pools.get(runtime)?.destroy();
    },
    /** How many requests are being served. */
    inFlightCount: () => inFlight.size,
    /** Bytes held now in the budget: request bodies and answers held whole, together. */
    bodyBytesHeld: () => budget.used(),
    /** Bytes of answers held whole now (a part of {@link bodyBytesHeld}). */
    answerBytesHeld: () => budget.answersHeld(),
    /** Connections open now. */
    connectionsOpen: () => connections.open(),
    /** Places of the cut-off bound held now, and requests waiting for one (cut-off-gate.mjs). */
    cutOffs: () => ({ held: gate.held(), waiting: gate.waiting() }),
  };
}

/**
 * Whether a request carries a body: a declared length over 0, or a chunked one.
 * @param {import("node:http").IncomingMessage} req
 */
function hasBody(req) {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
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
