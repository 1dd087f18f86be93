/**
 * The answer to a request body past the shape limits (json-shape.ts), shared by both hosting
 * rooms: the stateless handler (stateless/body-once.ts) and the sessionful transport
 * (sessions/legacy/worker-transport.ts), each of which reads a POST's body and would parse it.
 */
import { jsonRpcError, PROTOCOL_CODES } from "../../errors";
import { exceedsJsonShape, jsonShape, jsonShapeRefusal } from "./json-shape";

/**
 * The refusal of a body past the shape limits, or undefined when it is within them (then
 * parse it). A JSON-RPC Invalid Request error (`400`) for each id the body's messages carry (a
 * batch gets a batch), so that a client matches it to its call; one with id `null` when none do.
 * @param text - the body as text, not yet parsed
 */
export function refuseJsonShape(text: string): Response | undefined {
  const shape = jsonShape(text);
  const over = exceedsJsonShape(shape);
  if (over === undefined) return undefined;
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
