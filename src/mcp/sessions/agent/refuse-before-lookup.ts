/**
 * The checks `McpAgent.serve` runs on the Worker before it looks a session up. The session's
 * `WorkerTransport` makes the same checks, but it is only reached for a known session: without
 * them here, a request with an unknown id would get `404` where its real fault (a missing
 * Accept type, an unsupported protocol version, `initialize` with a session id) deserves the
 * more specific answer, as agents gives it.
 */
import {
  isJsonContentType,
  parseJSONRPCMessage,
  type JSONRPCMessage,
} from "@modelcontextprotocol/server";
import { PROTOCOL_CODES, jsonRpcError } from "../../../errors";
import { refuseBeforeSession } from "../legacy/request-checks";
import { refuseJsonShape } from "../../common/shape-refusal";
import { readCappedText } from "../../common/capped-text";

/** The largest POST body a session accepts (the transport's own default). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A POST that passed the checks: its body text (to forward) and its JSON-RPC messages. */
export interface CheckedPost {
  /** The body as read, to forward to the session's object. */
  text: string;
  /** The body's JSON-RPC messages (one, or a batch). */
  messages: JSONRPCMessage[];
}

/**
 * Reads and checks a POST: Accept (`406`), Content-Type (`415`), size (`413`), JSON and
 * JSON-RPC shape (`400` / `-32700`), then the initialize and protocol-version rules of
 * {@link refuseBeforeSession}, and `initialize` batched with other messages (`400` / `-32600`).
 *
 * @param request - the client's POST (its body is consumed)
 * @returns the refusal, or the body and its messages
 */
export async function checkPost(request: Request): Promise<Response | CheckedPost> {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcError(
      406,
      PROTOCOL_CODES.serverError,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return jsonRpcError(
      415,
      PROTOCOL_CODES.serverError,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
  // In bytes as they arrive (common/capped-text.ts): none is held past the limit.
  const read = await readCappedText(request, MAX_BODY_BYTES);
  if ("tooLarge" in read) return tooLarge();
  // A client that went away mid-body is answered like any unreadable body.
  const text = "text" in read ? read.text : undefined;
  // Its shape before its parse (common/json-shape.ts): a parse builds every value.
  const overShape = text === undefined ? undefined : refuseJsonShape(text);
  if (overShape !== undefined) return overShape;
  let body: unknown;
  try {
    body = JSON.parse(text ?? "");
  } catch {
    return jsonRpcError(400, PROTOCOL_CODES.parseError, "Parse error: Invalid JSON");
  }
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(body) ? body : [body]).map((message) => parseJSONRPCMessage(message));
  } catch {
    return jsonRpcError(400, PROTOCOL_CODES.parseError, "Parse error: Invalid JSON-RPC message");
  }
  const refused = refuseBeforeSession(request, body);
  if (refused !== undefined) return refused;
  const initializing = messages.some(
    (message) => "method" in message && message.method === "initialize",
  );
  if (initializing && messages.length > 1) {
    return jsonRpcError(
      400,
      PROTOCOL_CODES.invalidRequest,
      "Invalid Request: Only one initialization request is allowed",
    );
  }
  return { text: text ?? "", messages };
}

/**
 * Checks a GET (the standalone stream, or a resumed one) or DELETE, in agents' order: a GET
 * must accept `text/event-stream` (`406`) and carry a session id (`400`) before its protocol
 * version is looked at; a DELETE's version comes first. An unsupported version is `400`.
 *
 * @param request - the client's GET or DELETE
 * @returns the refusal, or `undefined` to continue
 */
export function checkGetOrDelete(request: Request): Response | undefined {
  if (request.method.toUpperCase() === "GET") {
    if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
      return jsonRpcError(
        406,
        PROTOCOL_CODES.serverError,
        "Not Acceptable: Client must accept text/event-stream",
      );
    }
    if (!request.headers.has("mcp-session-id")) return missingSessionId();
  }
  return refuseBeforeSession(request, undefined);
}

/**
 * The answer to a request that needs a session and names none.
 *
 * @returns `400` / `-32000`
 */
export function missingSessionId(): Response {
  return jsonRpcError(
    400,
    PROTOCOL_CODES.serverError,
    "Bad Request: Mcp-Session-Id header is required",
  );
}

function tooLarge(): Response {
  return jsonRpcError(
    413,
    PROTOCOL_CODES.serverError,
    `Request body exceeds ${MAX_BODY_BYTES} bytes.`,
  );
}
