/**
 * The host request callback behind `/mcp`'s `execute`: sends a checked request to the demo API
 * in-process, or to the configured API over HTTP with the credential added here.
 *
 * Security defaults: the credential (`API_TOKEN`, or the caller's forwarded bearer token) is
 * added only here, after the sandbox's request was validated; sandbox code cannot set
 * credential headers (refused earlier by `codemode.request()`), and the server also redacts the
 * credential from responses (a forwarded caller token is redacted here, and one shorter than 8
 * characters is not forwarded). Requests only go to the configured base URL: the path is
 * appended, never interpreted as a URL.
 *
 * Does not do: retries, or following redirects to other hosts with the credential (`fetch`
 * follows redirects, so it is set to `manual` and a 3xx comes back to the code as data).
 */
import type { ApiRequest, ApiRequestContext, ApiRequestHandler } from "../codemode/api-request";
import { toApiResult, type ApiResult } from "../codemode/api-response";
import { credentialSecrets, MIN_SECRET_LENGTH } from "../codemode/redaction";
import type { ApiTarget } from "./config";
import { demoApiFetch, type DemoStore } from "./demo/demo-store";

/**
 * Builds the request callback for a target.
 * @param target - demo or HTTP API, from the configuration
 * @param store - the demo store binding (for the demo target)
 */
export function apiRequestHandler(
  target: ApiTarget,
  store: DurableObjectNamespace<DemoStore>,
): ApiRequestHandler {
  return async (request, context) => {
    const { headers, body } = encodeBody(request);
    const init: RequestInit = { method: request.method, headers, signal: context.signal };
    if (body !== undefined) init.body = body;
    const path = withQuery(request.path, request.query);
    if (target.kind === "demo") return demoApiFetch(store, path, init);
    const credential = credentialFor(target, context);
    const forwarded = credential !== undefined && credential !== target.credential;
    if (forwarded) refuseShortToken(context);
    if (credential) headers.set(credential.header, credential.value);
    init.redirect = "manual";
    const response = await fetch(joinUrl(target.baseUrl, path), init);
    // The server redacts the configured API_TOKEN itself; a forwarded caller token is known
    // only here, so it is redacted here before the response reaches the sandbox.
    return forwarded ? redact(response, credential.value) : response;
  };
}

/**
 * A response with a forwarded caller token removed from every channel (header names and values,
 * body bytes, decoded text, JSON before and after parsing), by the same code the server uses for
 * its configured secrets, returned as the plain answer the server then checks again.
 */
function redact(response: Response, headerValue: string): Promise<ApiResult> {
  return toApiResult(response, credentialSecrets(headerValue));
}

/** A caller token too short to redact safely is not forwarded (the request is not sent). */
function refuseShortToken(context: ApiRequestContext): void {
  const token = context.mcp.http?.authInfo?.token ?? "";
  if (token.length < MIN_SECRET_LENGTH)
    throw new Error(
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

function encodeBody(request: ApiRequest): { headers: Headers; body?: BodyInit } {
  const headers = new Headers(request.headers ?? {});
  if (!headers.has("accept")) headers.set("accept", "application/json");
  if (request.rawBody !== undefined) {
    if (request.contentType) headers.set("content-type", request.contentType);
    const raw = request.rawBody;
    return { headers, body: raw instanceof Uint8Array ? raw : String(raw) };
  }
  if (request.body === undefined) return { headers };
  const type = request.contentType ?? "application/json";
  headers.set("content-type", type);
  if (/x-www-form-urlencoded/i.test(type)) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(request.body as Record<string, unknown>))
      form.set(k, String(v));
    return { headers, body: form.toString() };
  }
  return { headers, body: JSON.stringify(request.body) };
}

/**
 * Appends query parameters (arrays repeat the key; objects are sent as JSON text).
 * @param path - path, possibly with a query string already
 * @param query - parameters from the request
 */
export function withQuery(path: string, query: Record<string, unknown> | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value])
      params.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
  }
  const text = params.toString();
  if (!text) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${text}`;
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
