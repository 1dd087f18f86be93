/**
 * Elicitation without state (multi-round-trip requests, 2026-07-28): a handler returns
 * `inputRequired(...)`, the client answers and retries, and the handler reads this round's
 * answers with `acceptedContent(...)`. Re-exported from the SDK unchanged so there is one
 * implementation; sealing of `requestState` is the handler's `requestState` option.
 */
export {
  /** Builds the `input_required` result: `inputRequired({ inputRequests, requestState })`, plus `.elicit()`, `.elicitUrl()`, `.createMessage()`, `.listRoots()`. */
  inputRequired,
  /** Reads the accepted form content for one key of `ctx.mcpReq.inputResponses`; pass a schema to validate it. */
  acceptedContent,
  /** Reads one answer as a discriminated view (`accept`/`decline`/`cancel`, sampling, roots). */
  inputResponse,
  /** The SDK's HMAC `requestState` codec, for servers built outside `createMcpHandler`. */
  createRequestStateCodec,
} from "@modelcontextprotocol/server";
export type {
  InputRequiredSpec,
  InputResponseView,
  RequestStateCodec,
} from "@modelcontextprotocol/server";
