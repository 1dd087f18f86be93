/**
 * A POST body read as text up to a cap in bytes, for the sessionful lanes that read a body in
 * this package's own code (McpAgent's streamable and SSE POSTs, `WorkerTransport`).
 *
 * Why: those lanes read the whole body with `request.text()` and then compared its length in
 * UTF-16 units with a limit stated in bytes, so a chunked body (no `Content-Length`) was held
 * whole, however large, before it was refused, and a body of 3-byte characters passed at up to 3×
 * the limit. Here the declared length is checked before a byte is read, and the bytes are counted
 * as they arrive: no more than the cap (and one chunk) is ever held.
 */
import { concatBytes } from "./concat-bytes";

/** What {@link readCappedText} found: the text, or why there is none. */
export type CappedText = { text: string } | { tooLarge: true } | { unreadable: true };

/**
 * Reads `request`'s body as UTF-8 text, at most `maxBytes` of it.
 * @param request - the POST (its body is consumed)
 * @param maxBytes - the most bytes taken
 * @returns the text; `tooLarge` past the cap (declared or counted); `unreadable` when the body
 *   failed mid-way (the client went away)
 */
export async function readCappedText(request: Request, maxBytes: number): Promise<CappedText> {
  const read = await readCappedBytes(request, maxBytes);
  return "bytes" in read ? { text: new TextDecoder().decode(read.bytes) } : read;
}

/** What {@link readCappedBytes} found: the bytes, or why there are none. */
export type CappedBytes = { bytes: Uint8Array } | { tooLarge: true } | { unreadable: true };

/**
 * Reads `request`'s body as bytes, at most `maxBytes` of them, for a body that is passed on
 * rather than read here: decoded and encoded again, each byte that is not UTF-8 became U+FFFD,
 * 3 bytes, so a body under the cap grew to 3× it on the way.
 * @param request - the POST (its body is consumed)
 * @param maxBytes - the most bytes taken
 * @returns as {@link readCappedText}, with the bytes as they came
 */
export async function readCappedBytes(request: Request, maxBytes: number): Promise<CappedBytes> {
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) return { tooLarge: true };
  const body = request.body;
  if (body === null) return { bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch {
      return { unreadable: true };
    }
    if (read.done) break;
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    chunks.push(read.value);
  }
  return { bytes: concatBytes(chunks, size) };
}
