/**
 * Finds the `initialize` request in a POST body and normalizes the client's declared
 * capabilities, so the record stored for session restore and what the server sees agree.
 */

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
