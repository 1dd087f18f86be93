/**
 * What a client gets when the runtime serving its request is ended mid-request (it blocked the
 * runtime or crashed): a clear error it can act on, never a hang or a bare reset. MCP clients get
 * a JSON-RPC error for their request id, so the SDKs show the message.
 */

const RETRY = "retry";

/**
 * The message for a cut-off request.
 * @param {string} reason - why the runtime was replaced, e.g. "a run blocked it"
 */
export function cutOffMessage(reason) {
  return `the runtime was restarted because ${reason}; ${RETRY}`;
}

/**
 * The JSON-RPC request ids in a request body (one message or a batch), if it is JSON-RPC.
 * @param {Buffer} head - the start of the body (up to the size kept)
 * @returns {(string | number)[]}
 */
export function jsonRpcIds(head) {
  /** @type {any} */
  let parsed;
  try {
    parsed = JSON.parse(head.toString());
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages
    .filter(
      (/** @type {any} */ m) =>
        m !== null &&
        typeof m === "object" &&
        m.jsonrpc === "2.0" &&
        typeof m.method === "string" &&
        (typeof m.id === "string" || typeof m.id === "number"),
    )
    .map((/** @type {any} */ m) => m.id);
}

/**
 * The body of a cut-off reply: JSON-RPC errors for each id (an MCP request: its protocol fixes
 * the shape), else the product's one HTTP error shape, `{ error: { code, message, fix } }`
 * (src/app/errors/http-error.ts, code `runtime_restarted`).
 * @param {(string | number)[]} ids
 * @param {string} message
 */
export function cutOffBody(ids, message) {
  // -32603: internal error (the request may or may not have taken effect; the message says retry).
  const errors = ids.map((id) => ({ jsonrpc: "2.0", id, error: { code: -32603, message } }));
  if (errors.length === 0)
    return JSON.stringify({
      error: {
        code: "runtime_restarted",
        message,
        fix: "Retry the request (a new runtime serves it); if the server is stopping, start it again.",
      },
    });
  return JSON.stringify(errors.length === 1 ? errors[0] : errors);
}

/**
 * Answers a request whose runtime went away. Before the response started: HTTP 503 with a JSON
 * body. In an event stream already under way: a final `message` event with the JSON-RPC error(s),
 * then the end. Anything else already under way can only be cut (the client sees a short body).
 * @param {import("node:http").ServerResponse} res
 * @param {(string | number)[]} ids - the JSON-RPC ids of the request
 * @param {string} message
 * @param {string} [contentType] - the answer's content type, when its headers are already out
 *   (headers written from a raw list are not readable back with `getHeader`)
 */
export function replyCutOff(res, ids, message, contentType) {
  if (res.writableEnded || res.destroyed) return;
  if (!res.headersSent) {
    const body = cutOffBody(ids, message);
    res.writeHead(503, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "retry-after": "1",
    });
    res.end(body);
    return;
  }
  const type = contentType ?? String(res.getHeader("content-type") ?? "");
  if (type.startsWith("text/event-stream") && ids.length > 0) {
    res.end(`\n\nevent: message\ndata: ${cutOffBody(ids, message)}\n\n`);
    return;
  }
  res.destroy();
}

/**
 * Answers a request the front refused itself (a body too large or too slow), in the product's
 * error shape `{ error: { code, message, fix } }` (src/app/errors/http-error.ts, docs/errors.md; its codes
 * are listed there), and closes the connection.
 * @param {import("node:http").ServerResponse} res
 * @param {number} status - 408 or 413
 * @param {{ code: string, message: string, fix: string }} error
 */
export function replyFrontError(res, status, error) {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify({ error });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.end(body);
}
