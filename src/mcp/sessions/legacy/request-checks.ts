/**
 * Checks a Worker transport request before any session is looked up or any server is
 * connected: these requests can never be served, so they must not cost a storage read,
 * restore a session, or reach the SDK's less specific answers.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { PROTOCOL_CODES, jsonRpcError } from "../../../errors";

export { CLIENT_CLOSED_REQUEST } from "../../common/client-closed";

/**
 * Returns the refusal for a request that cannot be served, or `undefined` to continue.
 *
 * - an `Mcp-Protocol-Version` header naming a version the SDK does not serve, on any
 *   request but `initialize` (which negotiates): `400`, listing the supported versions;
 * - `initialize` carrying an `Mcp-Session-Id`: `400` / `-32600` (a session cannot be
 *   initialized twice; a client starting over must drop its old id);
 * - `initialize` without a string `params.protocolVersion`: `400` / `-32602` saying so.
 *
 * @param request - the incoming request
 * @param body - the parsed POST body, or `undefined` for GET/DELETE
 * @returns the refusal response, or `undefined`
 */
export function refuseBeforeSession(request: Request, body: unknown): Response | undefined {
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  const initialize = messages.find(
    (message): message is Record<string, unknown> =>
      typeof message === "object" && message !== null && message.method === "initialize",
  );
  if (initialize === undefined) {
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(
        400,
        PROTOCOL_CODES.serverError,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ` +
          `${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}). Send the version negotiated at initialize.`,
      );
    }
    return undefined;
  }
  const id =
    typeof initialize.id === "string" || typeof initialize.id === "number" ? initialize.id : null;
  if (request.headers.has("mcp-session-id")) {
    return jsonRpcError(
      400,
      PROTOCOL_CODES.invalidRequest,
      "Invalid Request: initialize must not carry an Mcp-Session-Id header; a session is " +
        "initialized once. To start a new session, send initialize without the header.",
      id,
    );
  }
  const params = initialize.params;
  const version =
    typeof params === "object" && params !== null
      ? (params as Record<string, unknown>).protocolVersion
      : undefined;
  if (typeof version !== "string") {
    return jsonRpcError(
      400,
      PROTOCOL_CODES.invalidParams,
      "Invalid params: initialize needs params.protocolVersion, the MCP revision the client " +
        `speaks (a string, e.g. "${SUPPORTED_PROTOCOL_VERSIONS[0]}").`,
      id,
    );
  }
  return undefined;
}
