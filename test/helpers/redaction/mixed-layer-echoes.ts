/**
 * Echoes that issue #40's fifth redaction review found unread (test/helpers/redaction/credential-echoes.ts
 * holds the earlier tables, and the helpers these are made with):
 *
 * - three layers mixing run and character encodings: a run encoding of a run encoding of a
 *   character-level encoding (base64 of base64 of `%XX`) and its siblings;
 * - UTF-16 under a spelled-out inner layer: a run encoding of a list of the credential's UTF-16
 *   bytes (base64 of `116,0,111,0,…`);
 * - a full-width copy with an escape inside it (`ｔｏｋ\u005fＬｉｖｅ…`) in an answer's raw bytes
 *   (in a text answer it was read).
 *
 * Every case reached the program recoverable before its reading (test/unit/codemode/redaction/
 * encoded-echoes.test.ts: 19 of 21 failed), except two kept beside them as the readings they
 * build on: a percent-encoded decimal list of UTF-16 bytes (decoded, read as a list, its NULs
 * dropped) and base64 of percent-encoded UTF-16 (a literal form).
 */
import {
  base16,
  base32,
  base64,
  base64url,
  codes,
  fullWidth,
  hex2,
  htmlDecimal,
  jsUnicode,
  latin1,
  nfkc,
  noNuls,
  percent,
  textEcho,
  unBase16,
  unBase32,
  unBase64,
  unDecimal,
  unHexList,
  unHtml,
  unJs,
  unPercent,
  unUtf8,
  utf16,
  utf8,
  type CredentialEcho,
} from "./credential-echoes";

/** The bytes of UTF-16 (little- or big-endian) of a text, as numbers. */
const utf16Bytes = (s: string, bigEndian = false) => [...utf16(s, bigEndian)];

/** A binary answer: the UTF-8 bytes of a JSON envelope holding the encoded credential. */
const bytesEcho = (
  name: string,
  encode: (s: string) => string,
  recover: (t: string) => string,
): CredentialEcho => ({
  name,
  contentType: "application/octet-stream",
  body: (s) => utf8(`{"note":"you sent","authorization":"${encode(s)}"}`),
  recover,
});

/** Full-width letters with the credential's `_` (and only it) written as an ASCII sequence. */
const fullWidthWith = (escape: string) => (s: string) => fullWidth(s).replace("＿", escape);

/** Three layers: a run encoding of a run encoding of a character-level encoding, and siblings. */
export const MIXED_LAYERS: CredentialEcho[] = [
  textEcho(
    "base64 of base64 of a percent-encoding",
    "text/plain",
    (s) => base64(base64(percent(s))),
    (t) => unPercent(unBase64(unBase64(t))),
  ),
  textEcho(
    "base64url of base64 of a percent-encoding",
    "text/plain",
    (s) => base64url(base64(percent(s))),
    (t) => unPercent(unBase64(unBase64(t))),
  ),
  textEcho(
    "base16 of base64 of a percent-encoding",
    "text/plain",
    (s) => base16(base64(percent(s))),
    (t) => unPercent(unBase64(unBase16(t))),
  ),
  textEcho(
    "base64 of base16 of a percent-encoding",
    "text/plain",
    (s) => base64(base16(percent(s))),
    (t) => unPercent(unBase16(unBase64(t))),
  ),
  textEcho(
    "base32 of base64 of a percent-encoding",
    "text/plain",
    (s) => base32(base64(percent(s))),
    (t) => unPercent(unBase64(unBase32(t))),
  ),
  textEcho(
    "base64 of base32 of a percent-encoding",
    "text/plain",
    (s) => base64(base32(percent(s))),
    (t) => unPercent(unBase32(unBase64(t))),
  ),
  textEcho(
    "base64 of base64 of HTML references",
    "text/plain",
    (s) => base64(base64(htmlDecimal(s))),
    (t) => unHtml(unBase64(unBase64(t))),
  ),
  textEcho(
    "base64 of base64 of \\u escapes",
    "text/plain",
    (s) => base64(base64(jsUnicode(s))),
    (t) => unJs(unBase64(unBase64(t))),
  ),
  textEcho(
    "base64 of base64 of decimal codes",
    "text/plain",
    (s) => base64(base64(codes(s).join(","))),
    (t) => unDecimal(unBase64(unBase64(t))),
  ),
];

/** UTF-16 bytes under a spelled-out inner layer, under a run encoding. */
export const UTF16_SPELLED: CredentialEcho[] = [
  textEcho(
    "base64 of a decimal list of UTF-16LE bytes",
    "text/plain",
    (s) => base64(utf16Bytes(s).join(",")),
    (t) => noNuls(unDecimal(unBase64(t))),
  ),
  textEcho(
    "base64 of a decimal list of UTF-16BE bytes",
    "text/plain",
    (s) => base64(utf16Bytes(s, true).join(", ")),
    (t) => noNuls(unDecimal(unBase64(t))),
  ),
  textEcho(
    "base64 of hex bytes of UTF-16LE",
    "text/plain",
    (s) => base64(utf16Bytes(s).map(hex2).join(" ")),
    (t) => noNuls(unHexList(unBase64(t))),
  ),
  textEcho(
    "base16 of a decimal list of UTF-16LE bytes",
    "text/plain",
    (s) => base16(utf16Bytes(s).join(",")),
    (t) => noNuls(unDecimal(unBase16(t))),
  ),
  textEcho(
    "a percent-encoded decimal list of UTF-16LE bytes",
    "text/plain",
    (s) => percent(utf16Bytes(s).join(",")),
    (t) => noNuls(unDecimal(unPercent(t))),
  ),
  textEcho(
    "base64 of a Node Buffer as JSON of UTF-16LE bytes",
    "text/plain",
    (s) => base64(JSON.stringify({ type: "Buffer", data: utf16Bytes(s) })),
    (t) => noNuls(unDecimal(unBase64(t))),
  ),
  textEcho(
    "base64 of a percent-encoding of UTF-16LE as text",
    "text/plain",
    (s) => base64(percent(latin1(utf16(s, false)))),
    (t) => noNuls(unPercent(unBase64(t))),
  ),
];

/** A full-width copy with an ASCII sequence inside it, in an answer's raw bytes. */
export const FULL_WIDTH_ESCAPED: CredentialEcho[] = [
  bytesEcho("full-width with a \\u escape inside, in bytes", fullWidthWith("\\u005f"), (t) =>
    nfkc(unJs(unUtf8(t))),
  ),
  bytesEcho("full-width with a \\x escape inside, in bytes", fullWidthWith("\\x5f"), (t) =>
    nfkc(unJs(unUtf8(t))),
  ),
  bytesEcho("full-width with a percent-encoding inside, in bytes", fullWidthWith("%5F"), (t) =>
    nfkc(unPercent(unUtf8(t))),
  ),
  bytesEcho("full-width with an HTML reference inside, in bytes", fullWidthWith("&#95;"), (t) =>
    nfkc(unHtml(unUtf8(t))),
  ),
  textEcho(
    "full-width with a \\u escape inside, in text",
    "text/plain",
    fullWidthWith("\\u005f"),
    (t) => nfkc(unJs(t)),
  ),
];

/**
 * Short secrets (8 and 12 characters) whose three run encodings are shorter than the 40
 * characters the run-decoded view once needed (attack5): base64 of base64 of base64 is 24 and 32
 * characters, hex of base64 of base64 and base64 of hex of base64 32 to 48.
 */
export const SHORT_SECRETS = ["k9Xq2wLp", "k9Xq2wLpA7zR"];

/** Three run encodings of a short secret (run with each of {@link SHORT_SECRETS}). */
export const SHORT_RUN_LAYERS: CredentialEcho[] = [
  textEcho(
    "base64 of base64 of base64",
    "text/plain",
    (s) => base64(base64(base64(s))),
    (t) => unBase64(unBase64(unBase64(t))),
  ),
  textEcho(
    "base16 of base64 of base64",
    "text/plain",
    (s) => base16(base64(base64(s))),
    (t) => unBase64(unBase64(unBase16(t))),
  ),
  textEcho(
    "base64 of base16 of base64",
    "text/plain",
    (s) => base64(base16(base64(s))),
    (t) => unBase64(unBase16(unBase64(t))),
  ),
];
