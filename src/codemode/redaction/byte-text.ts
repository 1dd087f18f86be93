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
let utf16le: TextDecoder | null | undefined;
/** What windows-1252 decodes each byte to (one code unit each), once the decoder is known. */
const WINDOWS_1252 = new Uint16Array(256);
/** What {@link byteView} shows each byte value as: windows-1252's table, or Latin-1's. */
const SHOWN = new Uint16Array(256);

/** Finds the decoders once (windows-1252 may be missing, or not one character per byte). */
function knowDecoders(): void {
  if (windows1252 !== undefined) return;
  try {
    const probe = new TextDecoder("windows-1252");
    windows1252 =
      probe.decode(new Uint8Array([0x41, 0x81, 0x9d, 0xff])).length === 4 ? probe : null;
  } catch {
    windows1252 = null;
  }
  const all = windows1252?.decode(Uint8Array.from({ length: 256 }, (_, i) => i));
  // One character per byte value, or none of it is used (so {@link SHOWN} is what the view shows).
  if (all?.length !== 256) windows1252 = null;
  if (windows1252) {
    for (let i = 0; i < 256; i++) WINDOWS_1252[i] = all!.charCodeAt(i);
    try {
      // No code unit of the table is U+FEFF, so no chunk starts with a byte order mark.
      utf16le = new TextDecoder("utf-16le");
    } catch {
      utf16le = null;
    }
  }
  for (let i = 0; i < 256; i++) SHOWN[i] = windows1252 ? WINDOWS_1252[i]! : i;
}

/**
 * The character {@link byteView} shows a byte as, for every byte value. The byte view is a
 * function of each byte alone (windows-1252 and Latin-1 are single-byte encodings: no byte's
 * character depends on its neighbours), so `byteView(bytes).charCodeAt(i)` is
 * `byteCodes()[bytes[i]]`, and the view of a part of the bytes is that part of the view: a
 * reader that needs a few characters of the view, or the view of a few stretches of the bytes,
 * need not make the view of all of them (issue #40: for 4 MiB of random bytes that view is an
 * 8 MB two-byte string, and 8 MB more of pieces while it is made).
 */
export function byteCodes(): Readonly<Uint16Array> {
  knowDecoders();
  return SHOWN;
}

/**
 * Characters of byte views made since the isolate started: a test shows that bytes cut to their
 * long stretches are not viewed whole (../decoding/long-stretches.ts).
 */
export const byteViewWork = { characters: 0 };

/**
 * Bytes as text for searching, one character per byte: windows-1252 decodes natively (fast) and
 * keeps one character per byte; patterns for bytes go through the same function, so matches
 * line up with byte offsets. Falls back to {@link latin1}.
 *
 * Bytes beyond ASCII are read through windows-1252's table into UTF-16 code units, which the
 * UTF-16 decoder makes a string of: the same text, in a third to a half of the windows-1252
 * decoder's time for a binary or CJK body in V8 (issue #40: 50 ms per MB, a quarter of a UTF-8
 * text answer's redaction). ASCII takes the decoder as before (its string is one byte a
 * character, as is one of bytes that windows-1252 keeps below U+0100).
 * @param bytes - the bytes to view
 */
export function byteView(bytes: Uint8Array): string {
  knowDecoders();
  byteViewWork.characters += bytes.length;
  const view = windows1252
    ? utf16le && wideBytes(bytes)
      ? tableView(bytes, utf16le)
      : windows1252.decode(bytes)
    : latin1(bytes);
  return view.length === bytes.length ? view : latin1(bytes);
}

/** Code units converted at once (a bounded buffer, not one of the bytes' size). */
const TABLE_CHUNK = 1 << 16;

/** Whether windows-1252 makes a character beyond U+00FF of some byte (0x80–0x9F). */
function wideBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80 && bytes[i]! <= 0x9f) return true;
  return false;
}

/** {@link byteView} through {@link WINDOWS_1252} and the UTF-16 decoder. */
function tableView(bytes: Uint8Array, decoder: TextDecoder): string {
  const units = new Uint16Array(Math.min(TABLE_CHUNK, bytes.length));
  let out = "";
  for (let k = 0; k < bytes.length; k += TABLE_CHUNK) {
    const end = Math.min(bytes.length, k + TABLE_CHUNK);
    for (let i = k; i < end; i++) units[i - k] = WINDOWS_1252[bytes[i]!]!;
    out += decoder.decode(units.subarray(0, end - k));
  }
  // Flattened once (the searches read it character by character).
  /\0/.test(out);
  return out;
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
