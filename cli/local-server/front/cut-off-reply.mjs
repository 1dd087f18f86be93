/**
 * What a client gets when the front answers a request itself, instead of a runtime: a request cut
 * off when the runtime serving it is ended (it blocked the runtime or crashed), a request that
 * came before any runtime was ready or while the server stops, and a request the front refuses
 * (its body too large, too slow, or over the memory budget; the API key missing). Always a clear
 * error the client can act on, never a hang or a bare reset, in the request's own protocol
 * shape: on the MCP endpoints a JSON-RPC error (for each request id of the body, or id null where
 * the body had none or was not read), so the SDKs show the message; elsewhere the product's one
 * HTTP error shape `{ error: { code, message, fix } }` (src/app/errors/http-error.ts,
 * docs/errors.md lists its codes).
 */
import { isMcpRoute, pathOf } from "./route-bodies.mjs";
import { jsonRpcIds } from "./body/json-rpc-members.mjs";

// Read without parsing the whole body (body/json-rpc-members.mjs); the front's parts import it here.
export { jsonRpcIds };

const RETRY = "retry";
/** The message of a request that came before the first runtime was ready. */
export const STARTING_MESSAGE = "the server is starting; try again in a few seconds";
/** The message of a request that came while the server stops (no runtime will come). */
export const STOPPING_MESSAGE = "the server is stopping";
/**
 * JSON-RPC code of a request cut off mid-way: internal error (it may or may not have taken
 * effect; the message says retry).
 */
const CUT_OFF_CODE = -32603;
/**
 * JSON-RPC code of a request the front answered without any runtime seeing it: the MCP SDK's own
 * code for transport-level refusals (it answers an oversized body with it).
 */
export const REFUSED_CODE = -32000;
/**
 * How long the connection of a request refused before its body was read stays open after the
 * answer (its sending side closed, nothing more read), so that the client reads the answer
 * first: a socket closed with bytes unread sends a reset, which can make the client discard the
 * answer it had received (seen in e2e front-memory: 5 of 120 uploads got no answer). nginx's
 * lingering close, without reading.
 */
export const LINGER_MS = 2_000;

/**
 * The message for a cut-off request.
 * @param {string} reason - why the runtime was replaced, e.g. "a run blocked it"
 */
export function cutOffMessage(reason) {
  return `the runtime was restarted because ${reason}; ${RETRY}`;
}

/**
 * Whether the answer to `req` is JSON-RPC: it went to an MCP endpoint, or its body held JSON-RPC
 * requests (`ids`).
 * @param {import("node:http").IncomingMessage | undefined} req
 * @param {readonly (string | number)[]} ids
 */
export function speaksJsonRpc(req, ids) {
  return ids.length > 0 || (req !== undefined && isMcpRoute(pathOf(req.url)));
}

/**
 * A JSON-RPC error answer: one error per request id (an array for a batch), or one with id null
 * when there is none.
 * @param {readonly (string | number)[]} ids
 * @param {number} code
 * @param {string} message
 */
export function jsonRpcErrorBody(ids, code, message) {
  const error = { code, message };
  if (ids.length === 0) return JSON.stringify({ jsonrpc: "2.0", id: null, error });
  const errors = ids.map((id) => ({ jsonrpc: "2.0", id, error }));
  return JSON.stringify(errors.length === 1 ? errors[0] : errors);
}

/**
 * The body of a cut-off reply: JSON-RPC errors (an MCP request: its protocol fixes the shape),
 * else the product's one HTTP error shape, `{ error: { code, message, fix } }` (code
 * `runtime_restarted`).
 * @param {(string | number)[]} ids
 * @param {string} message
 * @param {boolean} [jsonRpc] - the request is an MCP request (default: it has ids)
 */
export function cutOffBody(ids, message, jsonRpc = ids.length > 0) {
  if (jsonRpc) return jsonRpcErrorBody(ids, CUT_OFF_CODE, message);
  return JSON.stringify({
    error: {
      code: "runtime_restarted",
      message,
      fix: "Retry the request (a new runtime serves it); if the server is stopping, start it again.",
    },
  });
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
    const body = cutOffBody(ids, message, speaksJsonRpc(res.req, ids));
    // Its own status message: a runtime's answer that `writeHead` refused left its own on `res`.
    res.writeHead(503, "Service Unavailable", {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "retry-after": "1",
    });
    res.end(body);
    return;
  }
  const type = contentType ?? String(res.getHeader("content-type") ?? "");
  if (type.startsWith("text/event-stream") && ids.length > 0) {
    res.end(`\n\nevent: message\ndata: ${cutOffBody(ids, message, true)}\n\n`);
    return;
  }
  res.destroy();
}

/**
 * Answers a request that no runtime will serve now: it came before the first runtime was ready
 * (`starting`: `503`, `Retry-After: 2`, code `server_starting`), or while the server stops
 * (`stopping`: `503`, code `runtime_restarted`, as a cut-off). An MCP request gets a JSON-RPC
 * error (its ids from `body` when given, else id null).
 * @param {import("node:http").ServerResponse} res
 * @param {"starting" | "stopping"} state
 * @param {Buffer} [body] - the request's body, when it was read
 */
export function replyNotServing(res, state, body) {
  const ids = body ? jsonRpcIds(body) : [];
  if (state === "stopping") return replyCutOff(res, ids, STOPPING_MESSAGE);
  replyFrontError(
    res,
    503,
    {
      code: "server_starting",
      message: STARTING_MESSAGE,
      fix: "It answers as soon as its runtime is ready (GET /health says when); retry then.",
    },
    { ids, headers: { "retry-after": "2" }, keepAlive: true },
  );
}

/**
 * Answers a request the front refused itself. On an MCP endpoint (or for a body of JSON-RPC
 * requests): a JSON-RPC error with code {@link REFUSED_CODE} and the message and fix in one
 * text, under the same HTTP status; elsewhere the product's error shape
 * `{ error: { code, message, fix } }`.
 * @param {import("node:http").ServerResponse} res
 * @param {number} status - 401, 408, 413 or 503
 * @param {{ code: string, message: string, fix: string }} error
 * @param {{ ids?: (string | number)[], headers?: Record<string, string>, keepAlive?: boolean, jsonRpc?: boolean }} [options]
 *   - `ids`: the request's JSON-RPC ids (its body was read); `headers`: more headers
 *   (`WWW-Authenticate`, `Retry-After`); `keepAlive`: the body was read whole, so the connection
 *   may serve another request (else it is closed after the answer: the rest is not read);
 *   `jsonRpc: false`: the product's shape even on an MCP endpoint (a refusal the Worker makes
 *   before its MCP handler, as for the API key)
 */
export function replyFrontError(
  res,
  status,
  error,
  { ids = [], headers = {}, keepAlive, jsonRpc = speaksJsonRpc(res.req, ids) } = {},
) {
  if (res.headersSent || res.destroyed) return;
  // The front's own refusals of a JSON-RPC request say the code too, so logs and people can
  // search docs/errors.md for it.
  const body = jsonRpc
    ? jsonRpcErrorBody(ids, REFUSED_CODE, `${sentence(error.message)} ${error.fix} (${error.code})`)
    : JSON.stringify({ error });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
    ...(keepAlive ? {} : { connection: "close" }),
  });
  if (!keepAlive) {
    res.shouldKeepAlive = false;
    lingerBeforeClose(res);
  }
  res.end(body);
}

/**
 * Makes the close that Node does after a `Connection: close` answer linger (see
 * {@link LINGER_MS}): the answer is written and the sending side closed at once, as before, but
 * the socket is destroyed only after LINGER_MS (or when it closes before). Meanwhile nothing
 * more is read: what the client still sends waits in the kernel's buffers, not in this
 * process's memory.
 * @param {import("node:http").ServerResponse} res
 */
function lingerBeforeClose(res) {
  const socket = res.socket;
  if (!socket) return;
  // Node calls it once the answer is written (its resOnFinish); this socket's own only.
  socket.destroySoon = () => {
    socket.end();
    // Nothing more is read: each piece read would be a buffer for the collector, and a client
    // may send 16 MiB after its refusal (issue #40). What it sends waits in the kernel, and the
    // reset that closing with it unread sends comes LINGER_MS later. Node resumes the socket to
    // drop a request's unread body (its req._dump): paused again at once.
    socket.pause();
    socket.on("resume", () => socket.pause());
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once("close", () => clearTimeout(timer));
  };
}

/**
 * `text` ending as a sentence (a message may end without a period).
 * @param {string} text
 */
function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
