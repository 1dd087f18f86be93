/**
 * The host request callback behind `/mcp`'s `execute`: sends a checked request to the demo API
 * in-process, or to the configured API over HTTP with the credential added here.
 *
 * Security defaults: the credential (`API_TOKEN`, or the caller's forwarded bearer token) is
 * added only here, after the sandbox's request was validated; sandbox code cannot set
 * credential headers (refused earlier by `codemode.request()`), and the server also redacts the
 * credential from responses (a forwarded caller token is redacted here, and one shorter than 8
 * characters is not forwarded). Requests only go to the configured base URL: the canonical path
 * is appended as text, and the final URL is checked before anything is sent (same origin, the
 * path exactly as validated, matching the operation's path template), so nothing the URL parser
 * would reinterpret reaches another path.
 *
 * A request that cannot reach the API fails with a `NetworkError` naming the host and why
 * (./network-error.ts), never the URL's path or query.
 *
 * Does not do: retries, or following redirects to other hosts with the credential (`fetch`
 * follows redirects, so it is set to `manual` and a 3xx comes back to the code as data).
 */
import {
  RequestRefusedError,
  type ApiRequest,
  type ApiRequestContext,
  type ApiRequestHandler,
} from "../codemode/request/api-request";
import { encodeRequestBody, queryString } from "../codemode/request/request-encoding";
import { canonicalPath } from "../openapi/canonical-path";
import type { OpenApiSpec } from "../openapi/openapi-spec";
import { toApiResult, type ApiResult } from "../codemode/request/api-response";
import { credentialSecrets, MIN_SECRET_LENGTH } from "../codemode/redaction/redaction";
import type { ApiTarget } from "./config/config";
import { demoApiFetch } from "./demo/demo-api-fetch";
import type { DemoStore } from "./demo/demo-store";
import { CodeModeError } from "../errors";
import { networkError } from "../codemode/request/network-error";

/** The origin `demoApiFetch` puts in front of a path. */
const DEMO_BASE = "http://demo-api.internal";

/**
 * Builds the request callback for a target.
 * @param target - demo or HTTP API, from the configuration
 * @param store - the demo store binding (for the demo target)
 * @param spec - the served spec: the final URL must match the operation's path template in it
 * @param send - how HTTP requests leave (tests pass an upstream stand-in)
 */
export function apiRequestHandler(
  target: ApiTarget,
  store: DurableObjectNamespace<DemoStore>,
  spec: OpenApiSpec,
  send: typeof fetch = (input, init) => fetch(input, init),
): ApiRequestHandler {
  return async (request, context) => {
    const base = target.kind === "demo" ? DEMO_BASE : target.baseUrl;
    const url = checkedUrl(base, spec, request, context);
    const { headers, body } = encodeBody(request);
    const init: RequestInit = { method: request.method, headers, signal: context.signal };
    if (body !== undefined) init.body = body;
    if (target.kind === "demo") {
      // The demo store is a Durable Object of this Worker. A run cancelled while its stub fetch
      // carried the run's signal made workerd log an uncaught exception for the aborted
      // subrequest. So the fetch goes without the signal and the run stops waiting for it
      // instead: a write already sent completes, as one sent to a real API would.
      context.signal.throwIfAborted();
      const { signal: _unused, ...unsignalled } = init;
      return untilAborted(
        demoApiFetch(store, url.pathname + url.search, unsignalled),
        context.signal,
      );
    }
    const credential = credentialFor(target, context);
    const forwarded = credential !== undefined && credential !== target.credential;
    if (forwarded) refuseShortToken(context);
    if (credential) headers.set(credential.header, credential.value);
    init.redirect = "manual";
    let response: Response;
    try {
      response = await send(url.href, init);
    } catch (error) {
      // A cancelled run keeps its own reason; a network failure is named (host and reason).
      if (context.signal.aborted) throw error;
      throw await networkError(url, error);
    }
    // The server redacts the configured API_TOKEN itself; a forwarded caller token is known
    // only here, so it is redacted here before the response reaches the sandbox.
    return forwarded ? redact(response, credential.value, context) : response;
  };
}

/**
 * `pending`, or a rejection with the signal's reason as soon as it aborts.
 * @param pending - the work to wait for, started while the signal had not aborted
 * @param signal - the run's signal
 */
function untilAborted<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A response with a forwarded caller token removed from every channel (header names and values,
 * body bytes, decoded text, JSON before and after parsing), by the same code the server uses for
 * its configured secrets, returned as the plain answer the server then checks again. Its body is
 * read within the run's limits (`context.responses`), as the server reads every other.
 */
function redact(
  response: Response,
  headerValue: string,
  context: ApiRequestContext,
): Promise<ApiResult> {
  return toApiResult(
    response,
    credentialSecrets(headerValue),
    undefined,
    context.responses,
    context.signal,
  );
}

/** A caller token too short to redact safely is not forwarded (the request is not sent). */
function refuseShortToken(context: ApiRequestContext): void {
  const token = context.mcp.http?.authInfo?.token ?? "";
  if (token.length < MIN_SECRET_LENGTH)
    throw new CodeModeError(
      "secret_too_short",
      `The caller's bearer token is shorter than ${MIN_SECRET_LENGTH} characters, too short to redact from the API's responses safely, so it is not forwarded. Nothing was sent; connect with a real token.`,
    );
}

/** The secrets the server must redact from responses for this target. */
export function targetSecrets(target: ApiTarget): string[] {
  if (target.kind !== "http" || !target.credential) return [];
  return credentialSecrets(target.credential.value);
}

function credentialFor(
  target: Extract<ApiTarget, { kind: "http" }>,
  context: ApiRequestContext,
): { header: string; value: string } | undefined {
  if (target.forwardCallerToken) {
    const token = context.mcp.http?.authInfo?.token;
    if (token)
      return {
        header: target.callerHeader,
        value: target.callerScheme ? `${target.callerScheme} ${token}` : token,
      };
  }
  return target.credential;
}

/** Headers and body as sent: the same encoding the approval prompt shows. */
function encodeBody(request: ApiRequest): { headers: Headers; body?: BodyInit } {
  const headers = new Headers(request.headers ?? {});
  if (!headers.has("accept")) headers.set("accept", "application/json");
  const encoded = encodeRequestBody(request);
  if (!encoded) return { headers };
  if (encoded.contentType !== undefined) headers.set("content-type", encoded.contentType);
  return { headers, body: encoded.body };
}

/**
 * The URL a request goes to, checked as the last step before sending: the path is canonical,
 * the URL parser kept origin, path and query exactly as validated (nothing resolved away), and
 * the path matches the template of the operation the request was validated against.
 * @throws RequestRefusedError when any of that fails; nothing has been sent then
 */
function checkedUrl(
  base: string,
  spec: OpenApiSpec,
  request: ApiRequest,
  context: ApiRequestContext,
): URL {
  const refuse = (why: string): never => {
    throw new RequestRefusedError(`${request.method} ${request.path}: ${why} Nothing was sent.`);
  };
  const canonical = canonicalPath(request.path);
  if (!canonical.ok) return refuse(canonical.problem);
  if (canonical.path !== request.path)
    return refuse(`the path is not canonical (expected ${canonical.path}).`);
  const root = new URL(base);
  const rootPath = root.pathname.replace(/\/+$/, "");
  const query = queryString(request.query);
  const search = query ? `?${query}` : "";
  const url = new URL(`${base.replace(/\/+$/, "")}${request.path}${search}`);
  if (
    url.origin !== root.origin ||
    url.username !== root.username ||
    url.password !== root.password
  )
    return refuse("the URL would leave the configured API origin.");
  if (url.pathname !== rootPath + request.path || url.search !== search || url.hash !== "")
    return refuse(`the URL parser would send ${url.pathname}${url.search} instead: refused.`);
  const operation = context.operation;
  if (!operation) return refuse("no operation in the spec matches this path.");
  const match = spec.matchOperation(request.method, request.path);
  if (match.kind !== "found" || match.operation !== operation)
    return refuse(
      `the path does not match the operation it was checked against (${operation.method.toUpperCase()} ${operation.path}).`,
    );
  return url;
}
