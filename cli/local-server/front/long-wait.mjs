/**
 * Requests that wait long by design, and the share of the front's connection bound they may
 * hold (connection-cap.mjs). MCP `tasks/result` answers when its task ends, which takes as long
 * as the task, and an MCP session's standalone `GET` event stream lasts as long as the session;
 * the front never cuts a request its runtime serves, so 1,000 such waits on one 25 s
 * task held every place of the bound and every other client got `503` (attack10 review). Every
 * local client shares one address, so no per-address share tells them apart: the waits get a
 * share of the places instead, and the rest stay for requests that end by themselves and for
 * idle connections that a new client may take. A wait past its share is refused at once, in the
 * request's own protocol (a JSON-RPC error, `503`, `Retry-After: 1`): its client asks again, and
 * nothing already under way is cut.
 */

import { jsonRpcMembers } from "./body/json-rpc-members.mjs";
import { isMcpRoute, pathOf } from "./route-bodies.mjs";

/**
 * The share of the connection bound that long waits may hold together (at least one place).
 */
export const WAIT_SHARE = 0.75;

/** The method whose answer waits for a task's end (MCP tasks). */
const LONG_WAIT_METHOD = "tasks/result";
const MARK = Buffer.from(LONG_WAIT_METHOD);

/**
 * Places that long waits may hold at once with a bound of `max` connections.
 * @param {number} max
 * @returns {number}
 */
export function maxWaits(max) {
  return Math.max(1, Math.floor(max * WAIT_SHARE));
}

/**
 * The most long waits one caller (callers/peer-owners.mjs) holds at once: half of the waits'
 * share (at least one), so one process holding its waits leaves as many for all the others.
 * @param {number} max - the connection bound
 * @returns {number}
 */
export function callerWaitShare(max) {
  return Math.max(1, Math.floor(maxWaits(max) / 2));
}

/**
 * Whether a request waits long by design: a `tasks/result` in its body ({@link isLongWait}), or
 * an MCP session's standalone event stream (a `GET` on an MCP route that accepts
 * `text/event-stream`: it stays open for the session's server-sent messages).
 * @param {import("node:http").IncomingMessage} req
 * @param {Buffer} body - its body, read whole (empty for a `GET`)
 * @returns {boolean}
 */
export function waitsLong(req, body) {
  if (req.method === "GET")
    return (
      isMcpRoute(pathOf(req.url)) && String(req.headers.accept ?? "").includes("text/event-stream")
    );
  return isLongWait(body);
}

/**
 * JSON escapes that can spell a letter or the slash of a method's name (or of the `method` key):
 * `\uXXXX` any character, `\/` the slash. The others (`\n`, `\"`, `\\` …) spell neither.
 */
const SPELLING_ESCAPES = [Buffer.from("\\u"), Buffer.from("\\/")];

/**
 * Whether a request body (JSON-RPC: one message or a batch) holds a long wait. The body is
 * read only when the method's name may be in it: its bytes as they are, or one of the escapes
 * that could spell it, and then only its messages' methods are read (body/json-rpc-members.mjs).
 * `"method":"tasks\/result"` (or `\u0074asks/result`) is the same
 * method to the Worker's JSON parser, and it passed the share as an ordinary request: 1,000
 * such waits held every place of the bound again (attack17). Most bodies cost two or three byte
 * searches.
 * @param {Buffer} body
 * @returns {boolean}
 */
export function isLongWait(body) {
  if (!body.includes(MARK) && !SPELLING_ESCAPES.some((escape) => body.includes(escape)))
    return false;
  // Its messages' methods only: a parse of the whole body would build every value a client put
  // in it, in the supervisor's one thread (body/json-rpc-members.mjs).
  return jsonRpcMembers(body).some(({ method }) => method === LONG_WAIT_METHOD);
}

/**
 * The refusal of a long wait past its share.
 * @param {number} max - the connection bound
 * @returns {{ code: "server_busy", message: string, fix: string }}
 */
export function tooManyWaits(max) {
  return {
    code: "server_busy",
    message: `The server has ${maxWaits(max)} requests waiting already (tasks/result, GET event streams), the most it keeps of its ${max} connections (FRONT_MAX_CONNECTIONS) for waits.`,
    fix: "Retry in a moment, or poll with tasks/get; wait on fewer tasks or sessions at once, or raise FRONT_MAX_CONNECTIONS.",
  };
}

/**
 * The refusal of a long wait past its caller's share.
 * @param {number} max - the connection bound
 * @returns {{ code: "server_busy", message: string, fix: string }}
 */
export function tooManyCallerWaits(max) {
  return {
    code: "server_busy",
    message: `This client has ${callerWaitShare(max)} requests waiting already (tasks/result, GET event streams), the most one client keeps at once (half of the ${maxWaits(max)} the server keeps for waits).`,
    fix: "Retry in a moment, or poll with tasks/get; wait on fewer tasks or sessions at once, or raise FRONT_MAX_CONNECTIONS.",
  };
}
