/**
 * The identity of a request as sent, for binding approvals: two requests get the same
 * fingerprint only when everything that is sent is the same (method, canonical path, query,
 * headers, content type, body, raw body).
 */
import type { ApiRequest } from "../../openapi/validate-request";

/**
 * SHA-256 (hex) of the request's content. Relies on `normalizeApiRequest` having reduced
 * `query` and `body` to JSON data and `rawBody` to text or bytes, so the JSON text below is
 * exact: nothing that is sent is left out or merged.
 * @param request - a request from `normalizeApiRequest`
 */
export async function requestFingerprint(request: ApiRequest): Promise<string> {
  const raw = request.rawBody;
  const text = JSON.stringify([
    request.method,
    request.path,
    request.query ?? null,
    request.headers ?? null,
    request.contentType ?? null,
    request.body === undefined ? null : ["json", request.body],
    raw === undefined
      ? null
      : raw instanceof Uint8Array
        ? ["bytes", hex(raw)]
        : ["text", String(raw)],
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return hex(new Uint8Array(digest));
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
