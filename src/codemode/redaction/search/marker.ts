/**
 * The marker that replaces a secret, and cutting found ranges out of text and bytes. The marker
 * is laid out like what it replaces: a secret found with NULs between its characters (UTF-16 or
 * UTF-32 bytes read one character per byte) is replaced by the marker in the same layout, so the
 * rest of the text still reads in its encoding.
 */
import type { Range } from "./form-scanner";
import { fromLatin1 } from "../byte-text";

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * The text with each range replaced by the marker.
 * @param text - the text searched
 * @param ranges - found ranges, in order, not overlapping
 */
export function cutText(text: string, ranges: Range[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(
      text.slice(at, start),
      markerFor((i) => text.charCodeAt(i), start, end),
    );
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * New bytes with each range replaced by the marker's bytes (one byte per marker character).
 * @param bytes - the bytes searched (one character per byte)
 * @param ranges - found ranges, in order, not overlapping
 */
export function cutBytes(bytes: Uint8Array, ranges: Range[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(bytes.subarray(at, start), fromLatin1(markerFor((i) => bytes[i]!, start, end)));
    at = end;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** The marker for a cut range, laid out like the range (see the file header). */
function markerFor(code: (i: number) => number, start: number, end: number): string {
  let letters = 0;
  for (let i = start; i < end; i++) if (code(i) !== 0) letters++;
  const length = end - start;
  if (letters === length || letters === 0) return REDACTED;
  for (const stride of [2, 4]) {
    // Letters every `stride` characters from the first; NULs after the last belong to it (or
    // open the next character, big-endian), and stay.
    const span = (letters - 1) * stride + 1;
    let fits = length >= span;
    for (let i = 0; i < length && fits; i++)
      fits = (code(start + i) !== 0) === (i < span && i % stride === 0);
    if (fits) return [...REDACTED].join("\0".repeat(stride - 1)) + "\0".repeat(length - span);
  }
  return REDACTED;
}
