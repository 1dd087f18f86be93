/**
 * A product route's JSON body, read up to a cap in bytes: what the route answers `413
 * body_too_large` for, checked on the declared `Content-Length` before anything is read and on
 * the bytes as they arrive (a chunked upload declares none), so no more than the cap is ever
 * held.
 *
 * Why bytes and not characters: the cap bounds memory, and a body's memory is its bytes. A
 * check of `text.length` after `request.text()` lets through up to 3× the stated cap (a UTF-8
 * character of 3 bytes is one UTF-16 unit: `"日"` × 65,536 is 196,608 bytes), and reads the whole
 * body before looking at all.
 */
import { HttpError } from "./http-error";
// The one byte-capped reader, shared with the MCP lanes that read a body themselves.
import { readCappedBytes } from "../../mcp/common/capped-text";

/**
 * The body as text (UTF-8, as `request.text()` decodes it), or a refusal.
 * @param request - the route's request (its body is consumed)
 * @param maxBytes - the most bytes the route takes
 * @param fix - what the caller should do instead (the refusal's `fix`)
 * @throws HttpError `413 body_too_large` naming the cap in bytes; `400 invalid_request` when the
 *   body could not be read (the client went away mid-body)
 */
export async function cappedBodyText(
  request: Request,
  maxBytes: number,
  fix: string,
): Promise<string> {
  return new TextDecoder().decode(await cappedBodyBytes(request, maxBytes, fix));
}

/**
 * The body as the bytes that came, or a refusal: for a body passed on to where it is read (the
 * demo API's store), so that bytes that are not UTF-8 do not grow 3× on the way.
 * @param request - the route's request (its body is consumed)
 * @param maxBytes - the most bytes the route takes
 * @param fix - what the caller should do instead (the refusal's `fix`)
 * @throws HttpError as {@link cappedBodyText}
 */
export async function cappedBodyBytes(
  request: Request,
  maxBytes: number,
  fix: string,
): Promise<Uint8Array> {
  const read = await readCappedBytes(request, maxBytes);
  if ("bytes" in read) return read.bytes;
  if ("tooLarge" in read) throw tooLarge(maxBytes, fix, declaredLength(request, maxBytes));
  throw new HttpError(
    400,
    "invalid_request",
    "The request body could not be read (the connection ended before it did).",
    "Send the request again.",
  );
}

/** The declared length when it is what was refused (then the message can say it). */
function declaredLength(request: Request, maxBytes: number): number | undefined {
  const declared = Number(request.headers.get("content-length") ?? 0);
  return declared > maxBytes ? declared : undefined;
}

function tooLarge(maxBytes: number, fix: string, declared?: number): HttpError {
  const cap = `${maxBytes.toLocaleString("en-US")} bytes${kib(maxBytes)} of UTF-8 (a character outside ASCII takes 2-4)`;
  return new HttpError(
    413,
    "body_too_large",
    declared === undefined
      ? `The body is over ${cap}, the most this route takes.`
      : `The body is ${declared.toLocaleString("en-US")} bytes; this route takes at most ${cap}.`,
    fix,
  );
}

function kib(bytes: number): string {
  return bytes % 1024 === 0 ? ` (${bytes / 1024} KiB)` : "";
}
