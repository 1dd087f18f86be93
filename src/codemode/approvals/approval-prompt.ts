/**
 * The text a person reads before approving an API request: exactly what will be sent, so an
 * approval means what the user saw. Method, the canonical path with the query string as sent,
 * the sandbox's headers, the content type, and the body or raw body up to a bound, with a
 * truncation mark naming the total size when cut. Characters a screen would show as a line
 * break or that reorder text (NEL, U+2028, bidi controls), and control characters a terminal
 * acts on (all but a body's line feeds and tabs), are written as `\uXXXX` escapes.
 * Credentials are added later by the host and are never shown (the sandbox cannot set
 * credential headers).
 */
import type { ApiRequest } from "../../openapi/validate-request";
import { encodeRequestBody, queryString } from "../request/request-encoding";

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
    lines.push(`${name}: ${visible(value)}`);
  }
  if (encoded?.contentType !== undefined)
    lines.push(`Content-Type: ${visible(encoded.contentType)}`);
  if (encoded) lines.push(...bodyLines(encoded.body, request.rawBody !== undefined));
  return lines.join("\n");
}

/**
 * Characters a screen shows as a line break (C1 controls such as NEL, U+2028, U+2029) or that
 * reorder the text after them (bidi marks, embeddings, overrides and isolates: "Trojan Source";
 * U+061C, the Arabic letter mark, as U+200F): in the prompt they would make a forged line or a
 * reversed amount read as part of the request. And every C0 control and DEL but a line feed and
 * a tab (header values hold none: api-request.ts): a terminal client acts on them, a carriage
 * return writing the rest over the line's start, an escape sequence moving the cursor up or
 * erasing lines (a body's `\x1b[1A\x1b[2K` lets the text after it be written over what was shown),
 * vertical tab, form feed and U+001C–U+001E (Unicode's paragraph separators) breaking lines.
 */
const INVISIBLE =
  // oxlint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The text with {@link INVISIBLE} characters written as `\uXXXX` escapes. */
function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function bodyLines(body: string | Uint8Array, raw: boolean): string[] {
  const label = raw ? "Raw body" : "Body";
  if (typeof body === "string") {
    const shown = body.slice(0, PROMPT_BODY_LIMIT);
    const lines = [`${label} (text, ${count(body.length)} characters):`, visible(shown)];
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
