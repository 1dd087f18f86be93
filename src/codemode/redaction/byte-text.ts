/**
 * Bytes as text and text as bytes, one character per byte: redaction searches bytes as text
 * (a secret's UTF-8, UTF-16 and UTF-32 forms are then found at any offset) and cuts them as
 * bytes, so the search, the marker, the forms and the views that rebuild text all convert the
 * same way. A leaf: it imports nothing.
 */

/** Bytes as text, one character per byte (code points 0–255). */
export const latin1 = (bytes: Uint8Array) => {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
};
/** The inverse of {@link latin1}. */
export const fromLatin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
/** UTF-8 bytes of a text. */
export const utf8 = (text: string) => new TextEncoder().encode(text);
/** UTF-16 bytes of a text, little- or big-endian. */
export const utf16 = (text: string, bigEndian: boolean) => {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const [lo, hi] = [text.charCodeAt(i) & 0xff, text.charCodeAt(i) >> 8];
    out.set(bigEndian ? [hi, lo] : [lo, hi], i * 2);
  }
  return out;
};

let windows1252: TextDecoder | null | undefined;

/**
 * Bytes as text for searching, one character per byte: windows-1252 decodes natively (fast) and
 * keeps one character per byte; patterns for bytes go through the same function, so matches
 * line up with byte offsets. Falls back to {@link latin1}.
 * @param bytes - the bytes to view
 */
export function byteView(bytes: Uint8Array): string {
  if (windows1252 === undefined) {
    try {
      const probe = new TextDecoder("windows-1252");
      windows1252 =
        probe.decode(new Uint8Array([0x41, 0x81, 0x9d, 0xff])).length === 4 ? probe : null;
    } catch {
      windows1252 = null;
    }
  }
  const view = windows1252 ? windows1252.decode(bytes) : latin1(bytes);
  return view.length === bytes.length ? view : latin1(bytes);
}

/**
 * The length of the UTF-8 multi-byte sequence a lead byte starts (2–4), or 0 for a byte that
 * starts none (ASCII, a continuation byte, 0xC0/0xC1 and 0xF5–0xFF, which only overlong or
 * out-of-range forms would start). One definition for every reader of UTF-8 one character or
 * one byte at a time (the compact view, the UTF-8 reading of bytes).
 * @param lead - the byte (or a character code standing for it)
 */
export function utf8LeadLength(lead: number): number {
  return lead >= 0xc2 && lead <= 0xdf
    ? 2
    : lead >= 0xe0 && lead <= 0xef
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
        ? 4
        : 0;
}

/**
 * Whether a code point read from a UTF-8 sequence of `length` bytes is well-formed: no overlong
 * form, no surrogate, nothing beyond U+10FFFF.
 * @param code - the code point the sequence spells
 * @param length - the sequence's length in bytes (2–4)
 */
export function utf8CodeFits(code: number, length: number): boolean {
  return code >= UTF8_MIN_CODE[length]! && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
}

/** The smallest code point a sequence of each length may hold (below it: an overlong form). */
const UTF8_MIN_CODE = [0, 0, 0x80, 0x800, 0x10000];
