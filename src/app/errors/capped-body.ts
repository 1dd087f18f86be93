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

/**
 * The body as text (UTF-8, as `request.text()` decodes it), or a refusal.
 * @param request - the route's request (its body is consumed)
 * @param maxBytes - the most bytes the route takes
 * @param fix - what the caller should do instead (the refusal's `fix`)
 * @throws HttpError as {@link cappedBody}
 */
export async function cappedBodyText(
  request: Request,
  maxBytes: number,
  fix: string,
): Promise<string> {
  return new TextDecoder().decode(await cappedBody(request, maxBytes, fix));
}

/**
 * The body's bytes, or a refusal.
 * @param request - the route's request (its body is consumed)
 * @param maxBytes - the most bytes the route takes
 * @param fix - what the caller should do instead (the refusal's `fix`)
 * @throws HttpError `413 body_too_large` naming the cap in bytes; `400 invalid_request` when the
 *   body could not be read (the client went away mid-body)
 */
export async function cappedBody(
  request: Request,
  maxBytes: number,
  fix: string,
): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes, fix, declared);
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch {
      throw new HttpError(
        400,
        "invalid_request",
        "The request body could not be read (the connection ended before it did).",
        "Send the request again.",
      );
    }
    if (read.done) break;
    size += read.value.byteLength;
    if (size > maxBytes) {
      // Stop here: what is left is never read, so a body past the cap holds no more than it.
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes, fix);
    }
    chunks.push(read.value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
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
