/**
 * Push elicitation for 2025-era sessions: ask the connected client for input in the middle of
 * a tool call and await the answer on the call's own stream. Used by `McpAgent.elicitInput`.
 */
import { CodeModeError } from "../../../errors";
import { protocolOf, type AnyMcpServer } from "../../common/server-kind";

/** A form-mode request: a flat object schema of primitive fields (`mode` may be omitted). */
export interface FormElicitation {
  mode?: "form";
  message: string;
  requestedSchema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  _meta?: Record<string, unknown>;
}

/** A URL-mode request: send the user to `url` for an out-of-band interaction. */
export interface UrlElicitation {
  mode: "url";
  message: string;
  url: string;
  /** Unique per request; repeat it in `notifications/elicitation/complete`. */
  elicitationId: string;
  _meta?: Record<string, unknown>;
}

/** What the client answered. `content` is present for an accepted form. */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/** Options of a push elicitation. */
export interface ElicitOptions {
  /** The id of the tool call being served (`extra.requestId`): the question rides on its stream. */
  relatedRequestId?: string | number;
  /** Milliseconds to wait for the answer. */
  timeout?: number;
}

/**
 * Sends `elicitation/create` to the client of `server` and returns its answer.
 *
 * Security defaults: refused (before anything is sent) unless the client declared the mode
 * at `initialize`; URL mode needs an http(s) `url` and an `elicitationId`. Never ask for
 * passwords, API keys, tokens or payment data in a form; never put secrets or pre-authorized
 * links in `url`. Bind each request to the authenticated user (`props`) yourself.
 *
 * Does not do: validate that a URL-mode interaction really completed (send
 * `notifications/elicitation/complete` yourself when it did).
 *
 * @param server - the session's server (SDK v1 or v2)
 * @param params - a form or URL request
 * @param options - related request id and timeout
 * @returns the client's answer. When the client answers `elicitation/create` with a JSON-RPC
 *   error, this resolves `{ action: "cancel", content: { error, code } }` (the client's message
 *   and code), as `agents` does: no input was given, and tools written for `agents` take their
 *   cancel path instead of failing.
 * @throws CodeModeError `"elicitation_unsupported"`, `"invalid_elicitation"` or
 *   `"elicitation_timeout"`; thrown inside a tool handler each becomes an `isError` tool
 *   result carrying the message
 */
export async function pushElicitation(
  server: AnyMcpServer,
  params: FormElicitation | UrlElicitation,
  options: ElicitOptions & { timeout: number },
): Promise<ElicitationAnswer> {
  const protocol = protocolOf(server) as unknown as PushProtocol;
  const mode = params.mode ?? "form";
  const declared = protocol.getClientCapabilities?.()?.elicitation;
  if (declared?.[mode] === undefined) {
    throw new CodeModeError(
      "elicitation_unsupported",
      `Cannot ask the user: the client did not declare ${mode}-mode elicitation ` +
        `(capabilities.elicitation.${mode}) when it connected. Continue without the input or explain what is needed.`,
    );
  }
  if (params.mode === "url") assertUrlRequest(params);
  const requestOptions = {
    timeout: options.timeout,
    ...(options.relatedRequestId !== undefined && { relatedRequestId: options.relatedRequestId }),
  };
  try {
    return await protocol.elicitInput(params, requestOptions);
  } catch (error) {
    if (isTimeout(error)) {
      throw new CodeModeError(
        "elicitation_timeout",
        `The user did not answer the question "${params.message}" within ${Math.round(options.timeout / 1000)} s; ` +
          "nothing was changed. Ask again or continue without the input.",
        { cause: error },
      );
    }
    const refusal = clientRefusal(error);
    // The client answered, with an error instead of a result: nothing was entered, so the
    // tool sees `cancel` (as `agents` does) and can take its "nothing changed" path.
    if (refusal !== undefined) return { action: "cancel", content: refusal };
    throw error;
  }
}

/** The push surface of an SDK v1 or v2 server's protocol object. */
interface PushProtocol {
  getClientCapabilities?(): { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  elicitInput(params: unknown, options: unknown): Promise<ElicitationAnswer>;
}

function assertUrlRequest(params: UrlElicitation): void {
  if (typeof params.elicitationId !== "string" || params.elicitationId === "") {
    throw new CodeModeError("invalid_elicitation", "URL-mode elicitation needs an elicitationId.");
  }
  let protocol = "";
  try {
    protocol = new URL(params.url).protocol;
  } catch {
    // Reported below.
  }
  if (protocol !== "https:" && protocol !== "http:") {
    throw new CodeModeError("invalid_elicitation", "URL-mode elicitation needs an http(s) url.");
  }
}

// SDK v1's local error codes (its ErrorCode enum), read here without importing SDK v1 at run time.
const SDK_V1_CONNECTION_CLOSED = -32000;
const SDK_V1_REQUEST_TIMEOUT = -32001;

/**
 * The message and code of a JSON-RPC error the client sent back, or `undefined` for errors
 * raised locally by the SDK (timeout, connection closed), which are not the client's answer.
 */
function clientRefusal(error: unknown): { error: string; code: number } | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  // SDK v2 raises local failures as SdkError with string codes; SDK v1 uses these two numbers.
  if (typeof code !== "number" || isTimeout(error)) return undefined;
  if (code === SDK_V1_CONNECTION_CLOSED && error.message.endsWith("Connection closed"))
    return undefined;
  if (error.name !== "McpError" && error.name !== "ProtocolError") return undefined;
  // SDK v1 prefixes a message with "MCP error <code>: " on each side (a v1 client's McpError
  // is sent with its prefix): the user-facing text is what follows.
  return { error: error.message.replace(/^(?:MCP error -?\d+: )+/, ""), code };
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === SDK_V1_REQUEST_TIMEOUT || code === "REQUEST_TIMEOUT";
}
