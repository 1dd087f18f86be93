/**
 * Finds the `initialize` request in a POST body and normalizes the client's declared
 * capabilities, so the record stored for session restore and what the server sees agree.
 */
import { isRecord } from "../../../is-record";

/** A JSON-RPC message as parsed from a request body. */
export type JsonRpcMessage = Record<string, unknown>;

/**
 * Returns the `initialize` request in `body` (a message or a batch), with an empty
 * `capabilities.elicitation` object rewritten to `{ form: {} }`: the MCP spec says an empty
 * elicitation capability means form mode, while both SDKs' push APIs only look for `form`.
 * The message is changed in place, so the server sees the same capabilities.
 *
 * @param body - the parsed POST body
 * @returns the initialize request, or `undefined` when the body has none
 */
export function normalizeInitialize(body: unknown): JsonRpcMessage | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const initialize = messages.find(
    (message): message is JsonRpcMessage =>
      isRecord(message) && message.method === "initialize" && "id" in message,
  );
  if (initialize === undefined) return undefined;
  const params = initialize.params;
  const capabilities = isRecord(params) ? params.capabilities : undefined;
  const elicitation = isRecord(capabilities) ? capabilities.elicitation : undefined;
  if (isRecord(elicitation) && !("form" in elicitation) && !("url" in elicitation)) {
    elicitation.form = {};
  }
  return initialize;
}

/**
 * The protocol version a session negotiated: the one its `initialize` asked for when the SDK
 * supports it (the SDK answers with exactly that version then).
 *
 * @param initialize - the stored `initialize` request
 * @param supported - the versions the SDK serves
 * @returns the negotiated version, or `undefined` when it cannot be told
 */
export function negotiatedVersion(
  initialize: JsonRpcMessage,
  supported: readonly string[],
): string | undefined {
  const requested = isRecord(initialize.params) ? initialize.params.protocolVersion : undefined;
  return typeof requested === "string" && supported.includes(requested) ? requested : undefined;
}

/**
 * The request with its `MCP-Protocol-Version` header set to the session's negotiated version
 * when it names another supported revision. The SDK transport picks stream features (priming
 * events, resumable polling) from that header; inside a session the negotiated version is
 * the authority, so a client that sends an older revision's header keeps resumable streams.
 * Unsupported values are left alone for the SDK to reject.
 *
 * @param request - an in-session request (a POST's body may already be read: the copy has
 *   no body, the caller hands the parsed body to the SDK separately)
 * @param version - the negotiated version
 * @param supported - the versions the SDK serves
 * @returns the same request, or a body-less copy with the header replaced
 */
export function withSessionVersion(
  request: Request,
  version: string | undefined,
  supported: readonly string[],
): Request {
  const sent = request.headers.get("mcp-protocol-version");
  if (version === undefined || sent === null || sent === version || !supported.includes(sent)) {
    return request;
  }
  const headers = new Headers(request.headers);
  headers.set("mcp-protocol-version", version);
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}
