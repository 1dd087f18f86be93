/**
 * How a checked {@link ApiRequest} becomes bytes on the wire: the query string and the body.
 * One encoder for the product's request callback and for the approval prompt, so the prompt
 * shows what the callback sends. (A library user's own callback may encode differently; the
 * prompt then shows this default encoding of the same request.)
 */
import type { ApiRequest } from "../../openapi/validate-request";

/**
 * The query string as sent, without `?` (arrays repeat the key; objects are sent as JSON text;
 * `undefined` and `null` are left out). Empty when there is nothing to send.
 * @param query - the request's query parameters
 */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value])
      params.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
  }
  return params.toString();
}

/** A request body as sent: its content type (if any) and its text or bytes. */
export interface EncodedBody {
  contentType?: string;
  body: string | Uint8Array;
}

/**
 * Encodes the request's body: a `rawBody` as given (text or bytes), a `body` as JSON, or as
 * `application/x-www-form-urlencoded` when that content type is asked for.
 * @param request - the checked request
 * @returns undefined when the request has no body
 */
export function encodeRequestBody(request: ApiRequest): EncodedBody | undefined {
  if (request.rawBody !== undefined) {
    const raw = request.rawBody;
    const body = raw instanceof Uint8Array ? raw : String(raw);
    return request.contentType ? { contentType: request.contentType, body } : { body };
  }
  if (request.body === undefined) return undefined;
  const contentType = request.contentType ?? "application/json";
  if (/x-www-form-urlencoded/i.test(contentType)) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(request.body as Record<string, unknown>))
      form.set(k, String(v));
    return { contentType, body: form.toString() };
  }
  return { contentType, body: JSON.stringify(request.body) };
}
