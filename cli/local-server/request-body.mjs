/**
 * The front's first step for every request: read its body whole, within a size and a time limit,
 * before any runtime sees it (as reverse proxies do), so a slow or oversized upload gets 408/413
 * here and never holds a runtime.
 */
import { replyFrontError } from "./cut-off-reply.mjs";

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

/** @typedef {{ body: Buffer } | { refused: 408 | 413 } | { gone: true }} BodyRead */

/**
 * Reads a request's body whole, or settles with why not.
 * @param {import("node:http").IncomingMessage} req
 * @param {number} maxBytes
 * @param {number} timeoutMs
 * @returns {Promise<BodyRead>}
 */
export function readBody(req, maxBytes, timeoutMs) {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > maxBytes) return resolve({ refused: 413 });
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const timer = setTimeout(() => finish({ refused: 408 }), timeoutMs);
    /** @param {BodyRead} result */
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
 * Answers a request whose body was refused (413 too large, 408 too slow) and closes its
 * connection after the answer: the rest of a refused body is not read.
 * @param {import("node:http").ServerResponse} res
 * @param {408 | 413} status
 * @param {{ maxBodyBytes: number, bodyTimeoutMs: number }} limits - as named in the message
 */
export function refuseBody(res, status, { maxBodyBytes, bodyTimeoutMs }) {
  replyFrontError(
    res,
    status,
    status === 413
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
  res.shouldKeepAlive = false;
}
