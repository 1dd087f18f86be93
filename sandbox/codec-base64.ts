/**
 * Base64 for the wire codec (codec.ts, codec-decode.ts): binary values inside wire text. Written
 * out, not `btoa`/`atob`: the sandbox's engine has only polyfills of those, and both sides need
 * the same text. Runs on both sides, like the rest of the codec.
 */

// Captured when the module loads (in the sandbox: before any user code): see codec.ts.
const { fromCharCode } = String;
const { apply } = Reflect;
const { floor } = Math;
// Not charged as the program's own constructions (native-charges.ts): see codec.ts.
const Bytes = Uint8Array;
// The engine's own: a program's `subarray` could hand `fromCharCode` any list of codes.
const subarray = Uint8Array.prototype.subarray;

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each sextet's character code. */
const SEXTET_CODES = new Bytes(64);
/** Each character code's sextet plus one (0: not base64, skipped as the decoder always did). */
const SEXTET_OF = new Bytes(256);
for (let i = 0; i < 64; i++) {
  const code = B64.charCodeAt(i);
  SEXTET_CODES[i] = code;
  SEXTET_OF[code] = i + 1;
}
/** Input bytes per piece of base64 text made at once (a multiple of 3: no padding inside). */
const PIECE_BYTES = 3 * 2_048;

/**
 * Base64 of `bytes`, made in pieces of 8,192 characters, each one string from its character
 * codes. Why not a character at a time: appended to one string, the text of a 4 MiB body was a
 * rope of ~2.8 million pieces until flattened, +171 MiB of the host's heap and 320–485 ms of its
 * CPU per body handed over as an answer's JSON text; this way +15…+27 MiB (the text and its JSON)
 * and 45–64 ms (Node 22; bench/README.md, "Random-byte bodies in the real host"). `fromCharCode`
 * and `apply` are the ones captured when the module loaded.
 * @param bytes - the bytes to encode
 */
export function toBase64(bytes: Uint8Array): string {
  const length = bytes.length;
  const codes = new Bytes((PIECE_BYTES / 3) * 4);
  let out = "";
  for (let start = 0; start < length; start += PIECE_BYTES) {
    const end = start + PIECE_BYTES < length ? start + PIECE_BYTES : length;
    let n = 0;
    for (let i = start; i < end; i += 3) {
      const a = bytes[i] ?? 0;
      const b = i + 1 < end ? (bytes[i + 1] ?? 0) : 0;
      const c = i + 2 < end ? (bytes[i + 2] ?? 0) : 0;
      codes[n++] = SEXTET_CODES[a >> 2] ?? 0;
      codes[n++] = SEXTET_CODES[((a & 3) << 4) | (b >> 4)] ?? 0;
      codes[n++] = i + 1 < end ? (SEXTET_CODES[((b & 15) << 2) | (c >> 6)] ?? 0) : EQUALS;
      codes[n++] = i + 2 < end ? (SEXTET_CODES[c & 63] ?? 0) : EQUALS;
    }
    out += apply(
      fromCharCode,
      undefined,
      n === codes.length ? codes : (apply(subarray, codes, [0, n]) as Uint8Array),
    );
  }
  return out;
}
const EQUALS = 61;

/**
 * The bytes of base64 `text`; characters outside the alphabet (padding, line breaks) are
 * skipped. Read by character codes against a table, with no string method: in the sandbox a
 * program's searches and replacements are charged to its budget (native-charges.ts), and the
 * decoder's `replace` and four `indexOf`s per 4 characters charged ~13.6 operations a byte (57
 * million for a 4 MiB body), so a binary answer of more than ~1.4 MiB ended its run on the
 * default budget (20 million) however little the program did with it.
 * @param text - base64 text
 */
export function fromBase64(text: string): Uint8Array {
  const length = text.length;
  let sextets = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 256 && SEXTET_OF[code] !== 0) sextets++;
  }
  // 6 bits a sextet: a last 1 sextet makes no byte, 2 make 1, 3 make 2 (as the decoder always did).
  const out = new Bytes(floor((sextets * 3) / 4));
  let n = 0;
  let bits = 0;
  let held = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    const sextet = code < 256 ? (SEXTET_OF[code] ?? 0) : 0;
    if (sextet === 0) continue;
    bits = ((bits << 6) | (sextet - 1)) & 0xffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[n++] = (bits >> held) & 255;
    }
  }
  return out;
}
