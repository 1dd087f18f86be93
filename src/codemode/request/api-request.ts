/**
 * `codemode.request()` on the host: normalizes what sandbox code asked for, checks it against
 * the spec (on by default), asks for approval when required, then hands it to the host's request
 * callback, which adds credentials and sends it.
 *
 * Security defaults: sandbox code cannot set credential headers (the callback adds them) or
 * headers that make the server act on another method, path or host (request-headers.ts); a
 * request that does not match the spec never reaches the callback; responses are redacted of
 * configured secrets before they enter the sandbox.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { CompactOperation } from "../../openapi/types";
import { canonicalPath, hasControlCharacter } from "../../openapi/canonical-path";
import type { ApiRequest } from "../../openapi/validate-request";
import type { ApiResponseInit } from "./api-response";
import type { ResponseBudget } from "./response-budget";
import { SandboxError } from "../../errors";
import { headerRefusal } from "./request-headers";

export type { ApiRequest };

/** What the host request callback learns besides the request. */
export interface ApiRequestContext {
  /** The spec operation the request matched (absent when validation is off and nothing matched). */
  operation?: CompactOperation;
  /** Path parameters taken from the concrete path. */
  pathParams: Record<string, string>;
  /** Aborted when the run ends or the client cancels the tool call. */
  signal: AbortSignal;
  /** The outer MCP tool call (elicitation, notifications, `http.authInfo`). */
  mcp: ServerContext;
  /**
   * The run's reading of response bodies (./response-budget.ts): a callback that reads a
   * `Response` itself (to redact a secret only it knows, with `toApiResult`) passes it on, so
   * that body counts against the run's limits like every other. Absent in contexts built by hand.
   */
  responses?: ResponseBudget;
}

/**
 * The host's request callback: adds credentials, sends the request, returns the response.
 * The request's `path` is concrete and canonical (`/zones/123`: each segment percent-encoded
 * once, no `.`/`..` segments, no backslash, `?` or `#`; see `normalizeApiRequest`), also when
 * validation is off; `query` holds the query parameters. Append the path to the base URL as
 * text (never resolve it as a relative URL), and send only after the request was approved:
 * the callback runs only then.
 */
export type ApiRequestHandler = (
  request: ApiRequest,
  context: ApiRequestContext,
) => Promise<ApiCallbackAnswer> | ApiCallbackAnswer;

/**
 * What the request callback may answer: a `Response`, a plain `{ status, headers?, body? }`
 * ({@link ApiResponseInit}: an object with an HTTP status and no other keys), or anything else,
 * taken as the parsed body of a `200` answer, so callbacks written for `@cloudflare/codemode`
 * (`return await res.json()`) work unchanged (they lose the status: prefer returning the
 * `Response`).
 */
export type ApiCallbackAnswer = Response | ApiResponseInit | unknown;

/** Decides whether a request must be approved by a person before it is sent. */
export type ApprovalCheck = (
  request: ApiRequest,
  operation: CompactOperation | undefined,
) => boolean;

/** The refusal sandbox code sees (catchable; nothing was sent). */
export class RequestRefusedError extends SandboxError {
  /** @param message - what was refused and what to fix */
  constructor(message: string) {
    super("RequestRefusedError", message);
  }
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]);

/**
 * Turns the sandbox's argument into a checked {@link ApiRequest}, filling `{name}` path
 * templates from `params` when given. The result is a snapshot of plain data, and it is what
 * is validated, shown for approval and handed to the request callback:
 *
 * - `path` is canonical ({@link canonicalPath}): every segment percent-decoded and re-encoded
 *   as exactly one segment; `.`/`..` segments, `\`, `?`, `#`, control characters and empty
 *   segments are refused. Query parameters go in `query`, never in the path.
 * - `query` and `body` are JSON data (a JSON round trip: what JSON cannot carry is what JSON
 *   encoding would drop anyway); `rawBody` is text or a copy of the bytes.
 * - header names are HTTP tokens and values hold no line breaks; credential headers and headers
 *   that override the method, path or host are refused ({@link headerRefusal}).
 * @param input - whatever the code passed to `codemode.request()`
 * @throws RequestRefusedError naming the field to fix
 */
export function normalizeApiRequest(input: unknown): ApiRequest {
  if (!input || typeof input !== "object")
    throw new RequestRefusedError(
      "codemode.request() takes one object: { method, path, query?, body?, headers? }.",
    );
  const raw = input as Record<string, unknown>;
  const method = String(raw["method"] ?? "GET").toUpperCase();
  if (!METHODS.has(method))
    throw new RequestRefusedError(`codemode.request(): unknown method "${String(raw["method"])}".`);
  let path = raw["path"];
  if (typeof path !== "string" || !path.startsWith("/"))
    throw new RequestRefusedError(
      'codemode.request(): `path` must be a string starting with "/", e.g. "/zones/123/dns_records".',
    );
  const params = raw["params"];
  if (params && typeof params === "object") {
    path = path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const value = Object.hasOwn(params, name)
        ? (params as Record<string, unknown>)[name]
        : undefined;
      return value === undefined ? whole : encodeURIComponent(String(value));
    });
  }
  if ((path as string).includes("{") && /\{[^}]+\}/.test(path as string))
    throw new RequestRefusedError(
      `codemode.request(): fill the path template ${String(path)} with real values (or pass them in \`params\`).`,
    );
  const canonical = canonicalPath(path as string);
  if (!canonical.ok)
    throw new RequestRefusedError(`codemode.request(): ${canonical.problem} Nothing was sent.`);
  // `response` only chooses how the sandbox presents the answer (sandbox/ext-request.ts);
  // it is checked here so a typo is named before anything is sent, and never sent upstream.
  const mode = raw["response"];
  if (mode !== undefined && mode !== "body" && mode !== "full")
    throw new RequestRefusedError(
      `codemode.request(): \`response\` is "body" (the default: the 2xx body, other statuses throw ApiError) or "full" ({ status, ok, headers, body } for every status), not ${JSON.stringify(mode)?.slice(0, 40) ?? String(mode)}. Nothing was sent.`,
    );
  const request: ApiRequest = { method, path: canonical.path };
  // Most requests carry no headers: no object or entries array is made for them.
  const rawHeaders = raw["headers"];
  if (rawHeaders) {
    let headers: Record<string, string> | undefined;
    for (const [key, value] of Object.entries(rawHeaders)) {
      const refusal = headerRefusal(key);
      if (refusal) throw new RequestRefusedError(`codemode.request(): ${refusal}`);
      const text = String(value);
      if (!TOKEN.test(key) || badHeaderValue(text))
        throw new RequestRefusedError(
          `codemode.request(): the header ${JSON.stringify(key).slice(0, 80)} is not a valid HTTP header (names are tokens, values hold no line breaks or control characters). Nothing was sent.`,
        );
      (headers ??= {})[key] = text;
    }
    if (headers) request.headers = headers;
  }
  if (raw["query"] !== undefined && raw["query"] !== null) {
    const query = raw["query"];
    if (typeof query !== "object" || Array.isArray(query))
      throw new RequestRefusedError(
        "codemode.request(): `query` must be an object of parameters, e.g. { page: 2 }. Nothing was sent.",
      );
    request.query = jsonData(query, "query") as Record<string, unknown>;
  }
  if (raw["body"] !== undefined) request.body = jsonData(raw["body"], "body");
  // `rawBody: true` is @cloudflare/codemode's flag for "send `body` as it is"; ours also takes
  // the raw text or bytes in `rawBody` itself. `false` means the usual JSON body.
  if (raw["rawBody"] === true) {
    if (raw["body"] !== undefined) request.rawBody = rawBodyOf(raw["body"]);
    delete request.body;
  } else if (raw["rawBody"] !== undefined && raw["rawBody"] !== false)
    request.rawBody = rawBodyOf(raw["rawBody"]);
  const contentType = raw["contentType"];
  if (typeof contentType === "string") {
    if (badHeaderValue(contentType))
      throw new RequestRefusedError(
        "codemode.request(): `contentType` holds a line break or control character. Nothing was sent.",
      );
    request.contentType = contentType;
  }
  return request;
}

/** RFC 9110 token: a header name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than tab: never in a header value (nor in the approval prompt). */
const badHeaderValue = (text: string) => hasControlCharacter(text, true);

/** A JSON round trip: the exact data that is validated, approved and sent. */
function jsonData(value: unknown, field: string): unknown {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return JSON.parse(text);
  } catch {
    // Falls through to the refusal: a BigInt, or nesting too deep to encode.
  }
  throw new RequestRefusedError(
    `codemode.request(): \`${field}\` must be JSON data (objects, arrays, strings, numbers, booleans, null). Nothing was sent.`,
  );
}

function rawBodyOf(value: unknown): string | Uint8Array {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return value.slice();
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value))
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new RequestRefusedError(
    "codemode.request(): `rawBody` must be text or bytes (a Uint8Array). Nothing was sent.",
  );
}

/**
 * The default approval rule: everything but GET, HEAD and OPTIONS.
 * @param request - the request about to be sent
 */
export const nonReadRequests: ApprovalCheck = (request) =>
  !["GET", "HEAD", "OPTIONS"].includes(request.method);
