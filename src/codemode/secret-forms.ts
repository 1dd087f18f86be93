/**
 * The forms a secret is searched for, and the byte/text conversions redaction needs. Bytes are
 * searched as text with one character per byte, so one regular expression serves text, bytes
 * and base64-decoded payloads. See ./redaction.ts for what is and is not caught.
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
 * The transformed textual forms of one secret: as is, reversed, JSON-escaped, percent-encoded,
 * hex, every byte as `%XX`, every character as `\\uXXXX`, base64 and URL-safe base64 at each of
 * the 3 byte alignments.
 * @param secret - a configured secret
 */
export function textForms(secret: string): string[] {
  const bytes = utf8(secret);
  const forms = [
    secret,
    [...secret].toReversed().join(""),
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll("%20", "+"),
    [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
    [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
    secret
      .split("")
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join(""),
  ];
  // Base64 at each alignment: only the characters that depend on the secret's bytes alone.
  for (let k = 0; k < 3; k++) {
    const encoded = btoa(latin1(new Uint8Array([...new Uint8Array(k), ...bytes])));
    const core = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    forms.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/**
 * A global, case-insensitive pattern matching any of the forms, longest first.
 * @param forms - literal texts
 */
export function pattern(forms: Iterable<string>): RegExp {
  const unique = [...new Set(forms)]
    .filter((f) => f !== "")
    .toSorted((a, b) => b.length - a.length);
  return new RegExp(unique.map(escapeRegExp).join("|"), "gi");
}
