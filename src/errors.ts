/**
 * The error policy of the library, in one place (docs/errors.md):
 *
 * 1. Host and configuration errors: one class, {@link CodeModeError}, with a typed code from
 *    {@link ERROR_CODES}. Thrown to the developer who called us (a bad option, an unreachable
 *    upstream); the message says what went wrong and what to do.
 * 2. Errors a sandbox program can catch: the names in {@link SANDBOX_ERRORS}, described to the
 *    model in the tool descriptions ({@link sandboxErrorsLine}). A run's outcome is data, never
 *    a host exception.
 * 3. Errors on the wire: JSON-RPC error responses with the protocol codes of
 *    {@link PROTOCOL_CODES}, built by {@link jsonRpcError} only.
 *
 * No imports: every layer (the pure ones and, bundled, the sandbox) may use this file.
 */

/** Every code a {@link CodeModeError} carries, each with what it means. */
export const ERROR_CODES = {
  invalid_option: "an option of createMcpHandler / createLegacyMcpHandler is not valid",
  unsupported_option: "an option of agents/@cloudflare/codemode that this package does not take",
  invalid_server: "the server factory returned something that is not an McpServer or Server",
  server_connected: "the server is already connected to a transport or serving another request",
  invalid_limits: "an executor limit is out of range or not a number",
  namespace_invalid: "a host function namespace or its functions are not usable in the sandbox",
  spec_invalid: "the OpenAPI document is not one this package can serve",
  upstream_invalid: "an upstream MCP server's configuration is ambiguous or invalid",
  upstream_unreachable: "an upstream MCP server could not be reached or did not answer",
  upstream_headers_failed: "the headers function of a remote upstream threw for this caller",
  secret_too_short: "a secret is too short to redact from results safely",
  approvals_busy: "too many approvals are in flight in this isolate",
  not_sqlite: "McpAgent needs a SQLite-backed Durable Object",
  elicitation_unsupported: "the client did not declare the elicitation mode asked for",
  elicitation_timeout: "the client did not answer an elicitation in time",
  invalid_elicitation: "an elicitation request is missing what its mode needs",
  invalid_event: "an event store was given a stream id or event id it cannot hold",
  stream_closed: "a session's event stream is closed or was refused",
  not_supported: "an operation this implementation does not provide",
  invalid_query: "a listing request has a bad filter, limit or cursor",
  task_not_found: "no task with that id for this caller (it may have expired)",
  task_conflict: "a task is in a state that does not allow what was asked",
  skill_invalid: "a skill to save breaks a rule (name, size, free variable) or a store limit",
  code_too_long: "a program is longer than the run's maxCodeChars limit",
  skills_too_long: "the skills one run calls hold more code than the maxRunCodeChars limit",
} as const;

/** A stable, machine-readable code of a {@link CodeModeError}. */
export type CodeModeErrorCode = keyof typeof ERROR_CODES;

/**
 * The one local error type of the library (host and configuration errors). Wire errors are
 * JSON-RPC responses ({@link jsonRpcError}); sandbox outcomes are data, never thrown.
 */
export class CodeModeError extends Error {
  /** A stable, machine-readable code such as `"invalid_limits"` or `"spec_invalid"`. */
  readonly code: CodeModeErrorCode;

  /**
   * @param code - stable machine-readable code ({@link ERROR_CODES})
   * @param message - what went wrong and what to do about it
   * @param options - standard error options (`cause`)
   */
  constructor(code: CodeModeErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CodeModeError";
    this.code = code;
  }
}

/**
 * The errors a sandbox program can catch, by `name`, each with what it means to the program.
 * Said to the model in the tool descriptions; a test pins that the classes use these names.
 */
export const SANDBOX_ERRORS = {
  ApiError: "a non-2xx answer; has status, headers, body",
  RequestRefusedError: "not sent: off-spec or not approved; the message says what to fix",
  NetworkError: "the API could not be reached; the message names the host and if anything was sent",
  UpstreamToolError: "the tool reported an error; the message is its text",
  LimitError: "a run limit was hit; catching it does not help",
} as const;

/** The `name` of an error a sandbox program can catch. */
export type SandboxErrorName = keyof typeof SANDBOX_ERRORS;

/**
 * A line for a tool description naming the errors a program may see.
 * @param names - the errors this tool's programs can meet
 */
export function sandboxErrorsLine(names: readonly SandboxErrorName[]): string {
  return `Errors you can catch (by .name): ${names.map((n) => `${n} (${SANDBOX_ERRORS[n]})`).join("; ")}.`;
}

/**
 * Base of the host-built errors a sandbox program can catch: the host throws one, the program
 * sees an error with the same `name` and message.
 */
export class SandboxError extends Error {
  /** One of {@link SANDBOX_ERRORS}. */
  declare name: SandboxErrorName;

  /**
   * @param name - which error of the family
   * @param message - what the program is told
   */
  constructor(name: SandboxErrorName, message: string) {
    super(message);
    this.name = name;
  }
}

/** JSON-RPC error codes we answer with on the wire (JSON-RPC 2.0 and MCP transports). */
export const PROTOCOL_CODES = {
  /** The body is not JSON. */
  parseError: -32700,
  /** Not a valid JSON-RPC request (e.g. initialize inside a session). */
  invalidRequest: -32600,
  /** The method is not served here (e.g. `tasks/list` on an endpoint without sessions). */
  methodNotFound: -32601,
  /** Parameters are invalid (e.g. a missing protocolVersion, a tampered request state). */
  invalidParams: -32602,
  /** The server failed. */
  internalError: -32603,
  /** A transport-level refusal: forbidden Host/Origin, bad headers, body too large. */
  serverError: -32000,
  /** The MCP session is unknown (expired, deleted or never created). */
  sessionNotFound: -32001,
} as const;

/** A JSON-RPC error code from {@link PROTOCOL_CODES}. */
export type ProtocolCode = (typeof PROTOCOL_CODES)[keyof typeof PROTOCOL_CODES];

/**
 * The one builder of JSON-RPC error responses.
 * @param status - the HTTP status
 * @param code - the JSON-RPC error code ({@link PROTOCOL_CODES})
 * @param message - what went wrong and what to do
 * @param id - the request's id when known (`null` when the request could not be read)
 * @param data - the error's `data` member, e.g. `{ code: "upstream_unreachable" }` naming a
 *   {@link CodeModeError}
 */
export function jsonRpcError(
  status: number,
  code: ProtocolCode,
  message: string,
  id: string | number | null = null,
  data?: Record<string, unknown>,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return Response.json({ jsonrpc: "2.0", error, id }, { status });
}
