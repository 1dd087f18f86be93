/**
 * The answer to a request body past the shape limits (json-shape.ts), shared by both hosting
 * rooms: the stateless handler (stateless/body-once.ts) and the sessionful transport
 * (sessions/legacy/worker-transport.ts), each of which reads a POST's body and would parse it.
 */
import { jsonRpcError, PROTOCOL_CODES } from "../../errors";
import {
  exceedsJsonShape,
  jsonShape,
  jsonShapeRefusal,
  longIdRefusal,
  MAX_ID_CHARS,
} from "./json-shape";
import { isWellFormedJson } from "./json-well-formed";

/**
 * The parse error of a body that is past a shape limit and not JSON either: the SDK's words for
 * every other malformed body, so a client sees one answer for one fault.
 */
const MALFORMED_PAST_LIMIT = "Parse error: Invalid JSON";

/**
 * The refusal of a body past the shape limits or with an id longer than `MAX_ID_CHARS` (one
 * `-32600` with id `null`: the id is not echoed), or undefined when neither (then parse it). A JSON-RPC Invalid Request error (`400`) for each id the body's messages carry (a
 * batch gets a batch), so that a client matches it to its call; one with id `null` when none do.
 * A body past a limit that is not JSON at all gets the parse error instead (see below).
 * @param text - the body as text, not yet parsed
 */
export function refuseJsonShape(text: string): Response | undefined {
  const shape = jsonShape(text);
  const over = exceedsJsonShape(shape);
  const longId = shape.longestId > MAX_ID_CHARS;
  if (over === undefined && !longId) return undefined;
  // Malformed AND past a limit: the parse error wins. What the client must fix first is its
  // serializer: a text that is not JSON has no levels or values to send fewer of, and sending
  // less of it would still be refused (JSON-RPC: invalid JSON is -32700, with id null, since no
  // id can be read from it). Decided without a parse (json-well-formed.ts): parsing the body is
  // the cost the limits bound, and a parse that fails at the last byte pays all of it first.
  if (!isWellFormedJson(text))
    return jsonRpcError(400, PROTOCOL_CODES.parseError, MALFORMED_PAST_LIMIT);
  if (over === undefined) {
    // An id too long to echo: the answer carries id null (JSON-RPC's id for a request whose id
    // cannot be answered), one error for the body, in a batch's shape when it is one.
    const error = { code: PROTOCOL_CODES.invalidRequest, message: longIdRefusal(shape.longestId) };
    if (!shape.batch) return jsonRpcError(400, PROTOCOL_CODES.invalidRequest, error.message, null);
    return Response.json([{ jsonrpc: "2.0", id: null, error }], { status: 400 });
  }
  const message = jsonShapeRefusal(over);
  const { ids, batch } = shape;
  if (!batch && ids.length <= 1)
    return jsonRpcError(400, PROTOCOL_CODES.invalidRequest, message, ids[0] ?? null);
  const error = { code: PROTOCOL_CODES.invalidRequest, message };
  return Response.json(
    (ids.length === 0 ? [null] : ids).map((id) => ({ jsonrpc: "2.0", id, error })),
    { status: 400 },
  );
}
