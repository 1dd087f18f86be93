/**
 * The text a person reads before approving an API request: exactly what will be sent, so an
 * approval means what the user saw. Method, the canonical path with the query string as sent,
 * the sandbox's headers, the content type, and the body or raw body up to a bound, with a
 * truncation mark naming the total size when cut. Credentials are added later by the host and
 * are never shown (the sandbox cannot set credential headers).
 */
import type { ApiRequest } from "../openapi/validate-request";
import { encodeRequestBody, queryString } from "./request-encoding";

/** Most characters of a text body (or bytes of a binary one) the prompt shows. */
export const PROMPT_BODY_LIMIT = 2_000;

/** `48213` → `48,213` (no Intl: the same text in every runtime). */
const count = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * Renders the approval prompt for a checked request (the request must come from
 * `normalizeApiRequest`: its path is canonical and its header lines hold no line breaks, so the
 * program cannot forge lines of the prompt).
 * @param request - the request exactly as it will be handed to the request callback
 */
export function approvalPrompt(request: ApiRequest): string {
  const query = queryString(request.query);
  const lines = [`${request.method} ${request.path}${query ? `?${query}` : ""}`];
  const encoded = encodeRequestBody(request);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    // The body's content type replaces a header of the same name when it is sent.
    if (encoded?.contentType !== undefined && name.toLowerCase() === "content-type") continue;
    lines.push(`${name}: ${value}`);
  }
  if (encoded?.contentType !== undefined) lines.push(`Content-Type: ${encoded.contentType}`);
  if (encoded) lines.push(...bodyLines(encoded.body, request.rawBody !== undefined));
  return lines.join("\n");
}

function bodyLines(body: string | Uint8Array, raw: boolean): string[] {
  const label = raw ? "Raw body" : "Body";
  if (typeof body === "string") {
    const shown = body.slice(0, PROMPT_BODY_LIMIT);
    const lines = [`${label} (text, ${count(body.length)} characters):`, shown];
    if (shown.length < body.length)
      lines.push(`… [truncated: ${count(shown.length)} of ${count(body.length)} characters shown]`);
    return lines;
  }
  const shown = body.subarray(0, PROMPT_BODY_LIMIT / 2);
  const hex = [...shown].map((b) => b.toString(16).padStart(2, "0")).join("");
  const lines = [`${label} (bytes, ${count(body.length)} bytes, shown as hex):`, hex];
  if (shown.length < body.length)
    lines.push(`… [truncated: ${count(shown.length)} of ${count(body.length)} bytes shown]`);
  return lines;
}
