/**
 * `codemode.request()` on the host: normalizes what sandbox code asked for, checks it against
 * the spec (on by default), asks for approval when required, then hands it to the host's request
 * callback, which adds credentials and sends it.
 *
 * Security defaults: sandbox code cannot set credential headers (the callback adds them); a
 * request that does not match the spec never reaches the callback; responses are redacted of
 * configured secrets before they enter the sandbox.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { OpenApiSpec } from "../openapi/open-api-spec";
import type { CompactOperation } from "../openapi/types";
import { validateRequest, type ApiRequest } from "../openapi/validate-request";
import { plainApiResult, toApiResult, type ApiResponseInit, type ApiResult } from "./api-response";
import { secretRedactor } from "./redaction";

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
}

/**
 * The host's request callback: adds credentials, sends the request, returns the response.
 * The request's `path` is concrete (`/zones/123`), `query` holds query parameters.
 */
export type ApiRequestHandler = (
  request: ApiRequest,
  context: ApiRequestContext,
) => Promise<Response | ApiResponseInit> | Response | ApiResponseInit;

/** Decides whether a request must be approved by a person before it is sent. */
export type ApprovalCheck = (
  request: ApiRequest,
  operation: CompactOperation | undefined,
) => boolean;

/** The refusal sandbox code sees (catchable; nothing was sent). */
export class RequestRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestRefusedError";
  }
}

const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
  "x-auth-key",
  "x-auth-email",
  "x-api-key",
]);
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]);

/**
 * Turns the sandbox's argument into a checked {@link ApiRequest}, filling `{name}` path
 * templates from `params` when given.
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
      const value = (params as Record<string, unknown>)[name];
      return value === undefined ? whole : encodeURIComponent(String(value));
    });
  }
  if ((path as string).includes("{") && /\{[^}]+\}/.test(path as string))
    throw new RequestRefusedError(
      `codemode.request(): fill the path template ${String(path)} with real values (or pass them in \`params\`).`,
    );
  // Most requests carry no headers: no object or entries array is made for them.
  let headers: Record<string, string> | undefined;
  const rawHeaders = raw["headers"];
  if (rawHeaders) {
    for (const [key, value] of Object.entries(rawHeaders)) {
      if (CREDENTIAL_HEADERS.has(key.toLowerCase()))
        throw new RequestRefusedError(
          `codemode.request(): do not set the "${key}" header; authentication is added by the host.`,
        );
      (headers ??= {})[key] = String(value);
    }
  }
  const request: ApiRequest = { method, path: path as string };
  if (raw["query"] !== undefined) request.query = raw["query"] as Record<string, unknown>;
  if (headers) request.headers = headers;
  if (raw["body"] !== undefined) request.body = raw["body"];
  if (raw["rawBody"] !== undefined) request.rawBody = raw["rawBody"];
  if (typeof raw["contentType"] === "string") request.contentType = raw["contentType"];
  return request;
}

/** Everything one run's `codemode.request()` needs. */
export interface ApiRequesterOptions {
  spec: OpenApiSpec;
  handler: ApiRequestHandler;
  validate: boolean;
  secrets: readonly string[];
  mcp: ServerContext;
  /** Called before the handler for requests that need approval; throws to refuse. */
  approve?: (
    request: ApiRequest,
    operation: CompactOperation | undefined,
  ) => Promise<ApiResult | undefined>;
  /** Called after an approved request was sent (MRTR records it for replay). */
  onApprovedSent?: (request: ApiRequest, result: ApiResult) => void;
  needsApproval?: ApprovalCheck;
}

/**
 * Builds the host function behind `codemode.request()` for one run. It answers synchronously
 * when it can (no approval, a plain answer from the callback): this runs on every call, and a
 * value needs no promise, no microtask hop and no wait by the RPC layer. Refusals throw.
 * @param options - spec, callback, validation and approval settings
 */
export function apiRequester(options: ApiRequesterOptions) {
  const finish = (response: Response | ApiResponseInit): ApiResult | Promise<ApiResult> =>
    response instanceof Response
      ? toApiResult(response, options.secrets)
      : plainApiResult(response, options.secrets);
  // What the callback throws enters the sandbox as an exception: never with a secret in it.
  const redactor = secretRedactor(options.secrets);
  const refuse = (error: unknown): never => {
    throw redactor.error(error);
  };
  // A `Response` is read asynchronously; reading its body may fail too.
  const settleSync = (result: ApiResult | Promise<ApiResult>) =>
    result instanceof Promise ? result.catch(refuse) : result;
  const send = (
    request: ApiRequest,
    operation: CompactOperation | undefined,
    pathParams: Record<string, string>,
    signal: AbortSignal,
  ): ApiResult | Promise<ApiResult> => {
    let reply: ReturnType<ApiRequestHandler>;
    try {
      reply = options.handler(request, { operation, pathParams, signal, mcp: options.mcp });
    } catch (error) {
      return refuse(error);
    }
    // Awaited only when it is a promise (or any thenable): a plain answer stays synchronous.
    return typeof (reply as { then?: unknown }).then === "function"
      ? Promise.resolve(reply).then(finish).catch(refuse)
      : settleSync(finish(reply as Response | ApiResponseInit));
  };
  const approved = async (
    request: ApiRequest,
    operation: CompactOperation | undefined,
    pathParams: Record<string, string>,
    signal: AbortSignal,
  ): Promise<ApiResult> => {
    const replayed = await options.approve!(request, operation);
    if (replayed) return replayed;
    const result = await send(request, operation, pathParams, signal);
    options.onApprovedSent?.(request, result);
    return result;
  };
  return (input: unknown, signal: AbortSignal): ApiResult | Promise<ApiResult> => {
    const request = normalizeApiRequest(input);
    let operation: CompactOperation | undefined;
    let pathParams: Record<string, string> = {};
    if (options.validate) {
      const checked = validateRequest(options.spec, request);
      if (!checked.ok) throw new RequestRefusedError(`${checked.message} Nothing was sent.`);
      operation = checked.operation;
      pathParams = checked.pathParams;
    } else {
      const match = options.spec.matchOperation(request.method, request.path);
      if (match.kind === "found") {
        operation = match.operation;
        pathParams = match.params;
      }
    }
    if (options.approve !== undefined && options.needsApproval?.(request, operation) === true)
      return approved(request, operation, pathParams, signal);
    return send(request, operation, pathParams, signal);
  };
}

/**
 * The default approval rule: everything but GET, HEAD and OPTIONS.
 * @param request - the request about to be sent
 */
export const nonReadRequests: ApprovalCheck = (request) =>
  !["GET", "HEAD", "OPTIONS"].includes(request.method);
