/**
 * The literal forms a secret is searched for.
 *
 * Two kinds of encoding, two mechanisms. Character-level encodings (percent, character references,
 * escapes, quoted-printable, NULs between characters) are undone by decoding the text
 * (../decoding/decode-step.ts), so they are not listed here. Run encodings (base16/32/64/64url)
 * turn every byte into other letters and cannot be undone without guessing where a run starts, so
 * each is listed as the literal text it produces: for the secret and its reversed and case-changed
 * copies (`variants`), and for two-layer compositions whose outer layer is a run encoding: a run
 * encoding of a character-level encoding (base64 of `%XX…`, also of the UTF-16 bytes: base64 of
 * `%74%00%6f%00…`), of another run encoding (base64 of hex), or of UTF-16 bytes (UTF-7 is base64
 * of UTF-16BE). A composition whose outer layer is character-level (a percent-encoded base64
 * form) is found by decoding, then matching these literals. Spellings (lists, dumps, full-width:
 * ../spellings/) are read, not listed, except as the inner layer of a run encoding; ROT13, Atbash
 * and base32hex are listed (letter substitutions and an alphabet cost nothing as literal forms).
 */
import { latin1, utf16, utf8 } from "../byte-text";

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** RFC 4648's "extended hex" alphabet (base32hex): the same bits, other letters. */
const BASE32HEX = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

/** Each ASCII letter `shift` places on in its alphabet (a Caesar shift), everything else as it is. */
export const caesar = (text: string, shift: number) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + shift) % 26) + base);
  });

/**
 * Letters a secret needs before its other Caesar shifts are forms: a shift of a mostly-digit
 * secret (`x1234567` → `y1234567`) is too likely to be an ordinary id.
 */
const SHIFTED_LETTERS = 8;

/**
 * Atbash: each ASCII letter mirrored in its alphabet (`a` ↔ `z`), everything else as it is (its
 * own inverse). A letter substitution without a key, like ROT13: one literal form per variant.
 */
export const atbash = (text: string) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
  });

/** ROT13: each ASCII letter 13 places on, everything else as it is (its own inverse). */
export const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

function base32(bytes: Uint8Array, alphabet = BASE32): string {
  let out = "";
  let [bits, value] = [0, 0];
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + alphabet[(value << (5 - bits)) & 31] : out;
}

/**
 * The letters of a run encoding that depend on the given bytes alone, at every alignment the
 * bytes can have inside a longer run: base64 and base64url (3 alignments), base32 and base32hex
 * (5 each), hex.
 * @param bytes - what was encoded
 */
export function runForms(bytes: Uint8Array): string[] {
  const forms = [hex(bytes)];
  for (let k = 0; k < 3; k++) {
    const encoded = btoa(latin1(new Uint8Array([...new Uint8Array(k), ...bytes])));
    const core = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    forms.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  for (let k = 0; k < 5; k++)
    for (const alphabet of [BASE32, BASE32HEX]) {
      const encoded = base32(new Uint8Array([...new Uint8Array(k), ...bytes]), alphabet);
      forms.push(encoded.slice(Math.ceil((8 * k) / 5), Math.floor((8 * (k + bytes.length)) / 5)));
    }
  return forms;
}

/** The secret, reversed, upper case, lower case and with its case swapped. */
export function variants(secret: string): string[] {
  const swapped = [...secret]
    .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
    .join("");
  return [
    ...new Set([
      secret,
      [...secret].toReversed().join(""),
      secret.toUpperCase(),
      secret.toLowerCase(),
      swapped,
    ]),
  ];
}

const byteEscapes =
  (prefix: string, suffix = "", upper = false) =>
  (bytes: Uint8Array) =>
    [...bytes]
      .map((b) => {
        const digits = b.toString(16).padStart(2, "0");
        return prefix + (upper ? digits.toUpperCase() : digits) + suffix;
      })
      .join("");

/**
 * Whole-text character-level encodings of a text, as an API writing every character encoded
 * would produce them: the inner layer of a run-over-character composition (base64 of `%61%62…`).
 * Applied to the secret and to its UTF-16 bytes read one character per byte (`t\0o\0…`): base64
 * of `%74%00%6f%00…` is three layers (run over character over UTF-16), which no decoding reaches
 * (run encodings are not decoded: see the file header), so it is a literal form too.
 */
const CHARACTER_LEVEL: ((text: string) => string)[] = [
  (s) => encodeURIComponent(s),
  (s) => byteEscapes("%", "", true)(utf8(s)),
  (s) => byteEscapes("%")(utf8(s)),
  (s) => [...s].map((c) => `&#${c.codePointAt(0)};`).join(""),
  (s) => [...s].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(""),
  (s) => byteEscapes("\\x")(utf8(s)),
  (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  (s) => byteEscapes("=", "", true)(utf8(s)),
  (s) => JSON.stringify(s).slice(1, -1),
];

/**
 * {@link CHARACTER_LEVEL}, then the spellings a run encoding may be laid over: the inner layers
 * of the secret's run-over-character compositions.
 */
const CHARACTER_ENCODINGS: ((secret: string) => string)[] = [
  ...CHARACTER_LEVEL,
  // Spelled out: the inner layer of a run encoding over a list (base64 of `116,111,…`).
  (s) => [...utf8(s)].join(","),
  (s) => [...utf8(s)].join(", "),
  (s) => JSON.stringify({ type: "Buffer", data: [...utf8(s)] }),
  (s) => byteEscapes("", " ")(utf8(s)).trim(),
  (s) => [...utf8(s)].map((b) => b.toString(16).padStart(2, "0")).join(":"),
  (s) => [...utf8(s)].map((b) => b.toString(2).padStart(8, "0")).join(" "),
  (s) => JSON.stringify([...s]),
  (s) => [...s].map((c) => String.fromCodePoint(fullWidth(c.codePointAt(0)!))).join(""),
  rot13,
  (s) => [...s].join("\u200b"),
  // Octal bytes and code point notation (../spellings/octal-view.ts,
  // ../spellings/code-point-view.ts) under a run encoding: base64 of `164 157 153 …`,
  // of `U+0074 U+006F …`.
  (s) => [...utf8(s)].map((b) => b.toString(8).padStart(3, "0")).join(" "),
  (s) =>
    [...s]
      .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)
      .join(" "),
  // Tag characters (U+E0000 + ASCII): read as text by the tag view, but under a run encoding
  // (base64 of them) only as a literal form.
  (s) => [...s].map((c) => String.fromCodePoint(TAG_BASE + (c.codePointAt(0)! & 0x7f))).join(""),
];

const TAG_BASE = 0xe0000;

/** The full-width form of a printable ASCII code point (U+FF01–U+FF5E), others as they are. */
const fullWidth = (code: number) => (code > 0x20 && code < 0x7f ? code + 0xfee0 : code);

/**
 * Every literal form of one secret searched in text (see the file header for what is decoded
 * instead): its variants (also as UTF-8 read one character per byte and, with spaces as `+`, as
 * form encoding writes them), their run encodings, run encodings of its whole-text character
 * encodings (also of its UTF-16 bytes), of its run encodings, and of its UTF-16 bytes; for
 * characters beyond Latin-1, its UTF-16 bytes read one character per byte (NULs between Latin-1
 * characters are removed by decoding).
 * @param secret - a configured secret
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const add = (form: string) => {
    forms.add(form);
    if (form.includes(" ")) forms.add(form.replaceAll(" ", "+"));
  };
  for (const variant of variants(secret)) {
    const bytes = utf8(variant);
    add(variant);
    // ROT13 of the variant, and the run encodings of that and of the variant read back ROT13.
    add(rot13(variant));
    add(atbash(variant));
    // The other 24 shifts (a program that recovered the secret may return it shifted), as literal
    // text only: their run encodings would multiply the forms by 24 for a form no API produces.
    if ((variant.match(/[a-z]/gi)?.length ?? 0) >= SHIFTED_LETTERS)
      for (let shift = 1; shift < 26; shift++) if (shift !== 13) add(caesar(variant, shift));
    for (const form of runForms(utf8(rot13(variant)))) add(form);
    for (const form of runForms(bytes)) add(rot13(form));
    add(latin1(bytes));
    for (const form of runForms(bytes)) add(form);
    if (/[^\0-\xff]/.test(variant)) {
      add(latin1(utf16(variant, false)));
      add(latin1(utf16(variant, true)));
    }
  }
  const bytes = utf8(secret);
  for (const encode of CHARACTER_ENCODINGS)
    for (const form of runForms(utf8(encode(secret)))) add(form);
  for (const bigEndian of [false, true]) {
    const utf16Text = latin1(utf16(secret, bigEndian));
    for (const encode of CHARACTER_LEVEL)
      for (const form of runForms(utf8(encode(utf16Text)))) add(form);
  }
  // Hex is written in either case, and the two cases are different bytes to the outer layer.
  const inner = runForms(bytes);
  for (const text of [...inner, inner[0]!.toUpperCase()])
    for (const form of runForms(utf8(text))) add(form);
  for (const bigEndian of [false, true])
    for (const form of runForms(utf16(secret, bigEndian))) add(form);
  return [...forms].filter((form) => form !== "");
}
