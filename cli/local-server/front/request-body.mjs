/**
 * The front's first step for every request: read its body whole, within the route's size limit,
 * a time limit and the front's memory budget for bodies (body/budget.mjs), before any runtime
 * sees it (as reverse proxies do), so a slow, oversized or untimely upload gets 408/413/503 here
 * and never holds a runtime, nor more of the front's memory than the budget.
 */
import { collectBody, freeNow } from "./body/collector.mjs";
import { replyFrontError } from "./cut-off-reply.mjs";
import { MAX_ROUTE_BODY_BYTES } from "./route-bodies.mjs";

/**
 * The largest request body passed on: the largest any route takes (4 MiB, the MCP endpoints';
 * route-bodies.mjs has each route's own, which the front applies).
 */
export const MAX_BODY_BYTES = MAX_ROUTE_BODY_BYTES;
/**
 * Time allowed for a request's body once its headers arrived. Clients are on the same machine
 * (the front listens on 127.0.0.1): even a 4 MiB body takes milliseconds.
 */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * What reading a body came to: the body, or why not (`crowded`: refused 408 to make room for a
 * new connection at the front's bound, connection-cap.mjs), or the client went away.
 * @typedef {{ body: Buffer } | { refused: 408 | 413 | 503, crowded?: true } | { gone: true }} BodyRead
 */

/**
 * Reads a request's body whole, or settles with why not: `413` over `maxBytes` (a declared
 * length at once, before any byte is read), `408` not whole within `timeoutMs`, `503` its bytes
 * would cross the budget (`hold.add` said no, or the budget ended this read to make room for
 * a smaller body: body/budget.mjs), `408` with `crowded` when `arriving`'s room-maker was
 * called (a new connection took its place at the front's bound), `gone` the client went away.
 * Every byte is counted in `hold` as it arrives; on any outcome but a body, `hold` is released
 * here (the body's bytes stay held until its request ends: the caller releases them then).
 *
 * Memory: each piece the parser hands over is copied once into the body's storage and freed at
 * once, and the storage is freed at once when the body is refused (body/collector.mjs): a
 * connection holds its bytes once, and nothing of a refused body waits for a collection. Past a
 * refusal nothing more of the body is read (the request is paused).
 * @param {import("node:http").IncomingMessage} req
 * @param {{ maxBytes: number, timeoutMs: number, hold: import("./body/budget.mjs").BodyHold, arriving?: (makeRoom: () => void) => () => void }} limits
 *   `arriving`: told while the body arrives (ConnectionCap.reading, for this connection)
 * @returns {Promise<BodyRead>}
 */
export function readBody(req, { maxBytes, timeoutMs, hold, arriving }) {
  return new Promise((resolve) => {
    const header = req.headers["content-length"];
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > maxBytes) return settle({ refused: 413 });
    if (declared === 0) return resolve({ body: Buffer.alloc(0) });
    const stored = collectBody(declared);
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    let arrived = () => {};
    let settled = false;
    // The budget may end this read to make room for a smaller body (body/budget.mjs).
    hold.onEvict = () => finish({ refused: 503 });
    // Most bodies come whole with their headers: once the event loop is done with the bytes
    // read with them, Node's parser has read all of it (`req.complete`), and such a body needs
    // neither a timer nor a place among the bodies still arriving (issue #43: a timer per
    // request was a timer list made and dropped per request). Any other body is timed from
    // then on (the parser's callbacks run their own ticks: a tick is too early to tell).
    setImmediate(() => {
      if (settled || req.complete) return;
      timer = setTimeout(() => finish({ refused: 408 }), timeoutMs);
      // A new connection at the front's bound may take this one's place (connection-cap.mjs).
      arrived = arriving?.(() => finish({ refused: 408, crowded: true })) ?? arrived;
    });
    /** @param {BodyRead} result */
    function settle(result) {
      if (!("body" in result)) hold.release();
      resolve(result);
    }
    /** @param {BodyRead} result */
    function finish(result) {
      settled = true;
      clearTimeout(timer);
      // Read whole (or refused): no longer the budget's to end.
      hold.onEvict = undefined;
      arrived();
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      if (!("body" in result)) {
        stored.discard();
        // Nothing more of it is read: what its client still sends waits unread in the kernel
        // until the answer's lingering close ends the connection (cut-off-reply.mjs).
        req.pause();
      }
      settle(result);
    }
    /** @param {Buffer} chunk */
    function onData(chunk) {
      if (stored.size() + chunk.length > maxBytes) return finish({ refused: 413 });
      if (!hold.add(chunk.length)) return finish({ refused: 503 });
      stored.add(chunk);
      // Only this reader had the parser's piece: its memory goes back now, not at a collection.
      freeNow(chunk);
    }
    function onEnd() {
      finish({ body: stored.body() });
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", () => finish({ gone: true }));
    req.on("close", () => {
      if (!req.complete) finish({ gone: true });
    });
  });
}

/**
 * Answers a request whose body was refused (413 too large, 408 too slow, 503 over the budget) and
 * closes its connection after the answer: the rest of a refused body is not read. An MCP request
 * gets a JSON-RPC error (id null: its body was not read whole), others the product's shape.
 * @param {import("node:http").ServerResponse} res
 * @param {408 | 413 | 503} status
 * @param {{ maxBodyBytes: number, bodyTimeoutMs: number, budgetBytes: number, maxConnections?: number, crowded?: boolean }} limits
 *   as named in the message (`maxBodyBytes`: the route's); `crowded`: the 408 made room for a
 *   new connection at `maxConnections`
 */
export function refuseBody(
  res,
  status,
  { maxBodyBytes, bodyTimeoutMs, budgetBytes, maxConnections, crowded },
) {
  replyFrontError(
    res,
    status,
    crowded
      ? {
          code: "body_timeout",
          message: `The request body was still arriving when the server, at its bound of ${maxConnections} connections (FRONT_MAX_CONNECTIONS), needed this connection for another client.`,
          fix: "Send the whole body at once, right after the headers; the server reads it before serving the request.",
        }
      : status === 413
        ? {
            code: "body_too_large",
            message: `The request body is over ${maxBodyBytes} bytes, the most this route takes.`,
            fix: "Send less per request (the MCP endpoints take at most 4 MiB, other routes less).",
          }
        : status === 408
          ? {
              code: "body_timeout",
              message: `The request body did not arrive within ${bodyTimeoutMs / 1000} s.`,
              fix: "Send the whole body at once; the server reads it before serving the request.",
            }
          : {
              code: "server_busy",
              message: `The server holds ${Math.round(budgetBytes / 1_048_576)} MiB of request bodies already (FRONT_BODY_BUDGET_MB), the most it holds at once.`,
              fix: "Retry in a moment, when other requests have been served; send smaller bodies, or raise FRONT_BODY_BUDGET_MB.",
            },
    status === 503 ? { headers: { "retry-after": "1" } } : {},
  );
}
