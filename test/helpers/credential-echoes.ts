/**
 * An API that echoes the credential it was sent in every encoding an API can plausibly produce,
 * one layer and two layers deep, and for each echo the decoder a program would use to get the
 * credential back. Shared by the unit test of redaction and the hostile suite that runs a program
 * against each echo: an echo is recovered when its decoder, applied to what the program received,
 * yields the credential.
 *
 * Before issue #29, nine of the one-layer echoes were already caught (every byte percent-encoded,
 * `\uHHHH` and JSON escapes, base16 in both cases, base64, base64url, reversed, UTF-16LE); they
 * stay as regression cases. Every other echo reached the program recoverable.
 */

/** A credential with the punctuation named character references exist for (`_ . /`). */
export const ECHO_SECRET = "tok_Live.9f8e/7d6c-5b4a";

/** One echo: the body (text or bytes), its content type, and how a program gets it back. */
export interface CredentialEcho {
  name: string;
  contentType: string;
  body: (secret: string) => string | Uint8Array;
  /** What a program would do with the text it received (one character per byte for bytes). */
  recover: (received: string) => string;
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);
const fromLatin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
const reverse = (text: string) => [...text].toReversed().join("");
const swapCase = (text: string) =>
  [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
const codes = (text: string) => [...utf8(text)];
const hex2 = (b: number) => b.toString(16).padStart(2, "0");

// Encoders: every character or byte encoded, as a hostile or over-eager API would.
const percent = (t: string) =>
  codes(t)
    .map((b) => `%${hex2(b).toUpperCase()}`)
    .join("");
const htmlDecimal = (t: string) => [...t].map((c) => `&#${c.codePointAt(0)};`).join("");
const htmlHex = (t: string) => [...t].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join("");
const htmlNamed = (t: string) =>
  t.replaceAll("_", "&lowbar;").replaceAll(".", "&period;").replaceAll("/", "&sol;");
const jsHex = (t: string) =>
  codes(t)
    .map((b) => `\\x${hex2(b)}`)
    .join("");
const jsUnicode = (t: string) =>
  [...t].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const jsBrace = (t: string) => [...t].map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join("");
const css = (t: string) =>
  codes(t)
    .map((b) => `\\${hex2(b)} `)
    .join("");
const quotedPrintable = (t: string) =>
  codes(t)
    .map((b) => `=${hex2(b).toUpperCase()}`)
    .join("");
const base16 = (t: string) => codes(t).map(hex2).join("");
const base64 = (t: string) => btoa(latin1(utf8(t)));
const base64url = (t: string) =>
  base64(t).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const base32 = (t: string) => {
  let [out, bits, value] = ["", 0, 0];
  for (const byte of utf8(t)) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
};
const utf16 = (t: string, bigEndian: boolean, bom = false) =>
  Uint8Array.from([
    ...(bom ? (bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]) : []),
    ...[...t].flatMap((c) => {
      const [hi, lo] = [c.charCodeAt(0) >> 8, c.charCodeAt(0) & 0xff];
      return bigEndian ? [hi, lo] : [lo, hi];
    }),
  ]);
const utf32 = (t: string, bigEndian: boolean, bom = false) =>
  Uint8Array.from([
    ...(bom ? (bigEndian ? [0, 0, 0xfe, 0xff] : [0xff, 0xfe, 0, 0]) : []),
    ...[...t].flatMap((c) => {
      const code = c.codePointAt(0)!;
      const le = [code & 0xff, (code >> 8) & 0xff, code >> 16, 0];
      return bigEndian ? le.toReversed() : le;
    }),
  ]);
/** UTF-7 as RFC 2152 writes a run of characters: `+`, base64 of UTF-16BE, `-`. */
const utf7 = (t: string) => `+${btoa(latin1(utf16(t, true))).replace(/=+$/, "")}-`;

// Decoders a program would write: lenient, over the whole text.
const unPercent = (t: string) =>
  t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
const NAMED: Record<string, string> = { lowbar: "_", period: ".", sol: "/", amp: "&" };
const unHtml = (t: string) =>
  t
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&([a-z]+);/gi, (m, n: string) => NAMED[n] ?? m);
const unJs = (t: string) =>
  t
    .replace(/\\u\{([0-9a-f]+)\}/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/\\(?:x([0-9a-f]{2})|u([0-9a-f]{4}))/gi, (_, x?: string, u?: string) =>
      String.fromCharCode(Number.parseInt((x ?? u)!, 16)),
    );
const unCss = (t: string) =>
  t.replace(/\\([0-9a-f]{1,6}) ?/gi, (_, h: string) =>
    String.fromCodePoint(Number.parseInt(h, 16)),
  );
const unQuotedPrintable = (t: string) =>
  t
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
/** Every run of the alphabet's letters decoded (both alignments of nothing: runs start clean). */
const runs = (t: string, pattern: RegExp, decode: (run: string) => string) =>
  (t.match(pattern) ?? [])
    .map((run) => {
      try {
        return decode(run);
      } catch {
        return "";
      }
    })
    .join(" ");
const unBase16 = (t: string) =>
  runs(t, /[0-9a-f]{8,}/gi, (run) =>
    latin1(Uint8Array.from(run.match(/../g) ?? [], (h) => Number.parseInt(h, 16))),
  );
const unBase64 = (t: string) =>
  runs(t, /[A-Za-z0-9+/_-]{8,}={0,2}/g, (run) => {
    const std = run.replaceAll("-", "+").replaceAll("_", "/").replace(/=+$/, "");
    return atob(std.padEnd(Math.ceil(std.length / 4) * 4, "="));
  });
const unBase32 = (t: string) =>
  runs(t, /[A-Z2-7]{8,}=*/gi, (run) => {
    let [bits, value, out] = [0, 0, ""];
    for (const c of run.toUpperCase().replace(/=+$/, "")) {
      value = ((value << 5) | BASE32.indexOf(c)) & 0xffff;
      bits += 5;
      if (bits >= 8) {
        out += String.fromCharCode((value >>> (bits - 8)) & 0xff);
        bits -= 8;
      }
    }
    return out;
  });
const noNuls = (t: string) => t.replaceAll("\0", "");
const unUtf8 = (t: string) => new TextDecoder().decode(fromLatin1(t));
const unUtf7 = (t: string) =>
  t.replace(/\+([A-Za-z0-9+/]+)-?/g, (_, b: string) => noNuls(unBase64(b)));

/** A text echo, inside a small JSON-like envelope as a debugging endpoint would write it. */
const textEcho = (
  name: string,
  contentType: string,
  encode: (s: string) => string,
  recover: (t: string) => string,
): CredentialEcho => ({
  name,
  contentType,
  body: (s) => `{"note":"you sent","authorization":"${encode(s)}"}`,
  recover,
});

/** Echoes with one layer of encoding (plus reversed and case-changed copies). */
export const SINGLE_LAYER: CredentialEcho[] = [
  textEcho("HTML decimal references", "text/html", htmlDecimal, unHtml),
  textEcho("HTML hex references", "text/html", htmlHex, unHtml),
  textEcho("HTML named references", "text/html", htmlNamed, unHtml),
  textEcho("every byte percent-encoded", "text/plain", percent, unPercent),
  textEcho(
    "percent-encoded twice",
    "text/plain",
    (s) => percent(percent(s)),
    (t) => unPercent(unPercent(t)),
  ),
  textEcho(
    "percent-encoded three times",
    "text/plain",
    (s) => percent(percent(percent(s))),
    (t) => unPercent(unPercent(unPercent(t))),
  ),
  textEcho("JavaScript \\xHH escapes", "application/javascript", jsHex, unJs),
  textEcho("JavaScript \\uHHHH escapes", "application/javascript", jsUnicode, unJs),
  textEcho("JavaScript \\u{…} escapes", "application/javascript", jsBrace, unJs),
  textEcho("JSON \\u escapes", "application/json", jsUnicode, unJs),
  textEcho("CSS escapes", "text/css", css, unCss),
  textEcho("quoted-printable", "text/plain", quotedPrintable, unQuotedPrintable),
  textEcho("base16", "text/plain", base16, unBase16),
  textEcho("base16 in upper case", "text/plain", (s) => base16(s).toUpperCase(), unBase16),
  textEcho("base32", "text/plain", base32, unBase32),
  textEcho("base32 in lower case", "text/plain", (s) => base32(s).toLowerCase(), unBase32),
  textEcho("base64", "text/plain", base64, unBase64),
  textEcho("base64url", "text/plain", base64url, unBase64),
  textEcho("reversed", "text/plain", reverse, reverse),
  textEcho(
    "base64 of the reversed secret",
    "text/plain",
    (s) => base64(reverse(s)),
    (t) => reverse(unBase64(t)),
  ),
  textEcho(
    "base64 of the upper-case secret",
    "text/plain",
    (s) => base64(s.toUpperCase()),
    unBase64,
  ),
  textEcho(
    "base32 of the lower-case secret",
    "text/plain",
    (s) => base32(s.toLowerCase()),
    unBase32,
  ),
  textEcho(
    "base16 of the case-swapped secret",
    "text/plain",
    (s) => base16(swapCase(s)),
    (t) => swapCase(unBase16(t)),
  ),
  textEcho(
    "base64url of the reversed secret",
    "text/plain",
    (s) => base64url(reverse(s)),
    (t) => reverse(unBase64(t)),
  ),
  {
    name: "UTF-16LE declared, no BOM",
    contentType: "text/plain; charset=utf-16le",
    body: (s) => utf16(`token=${s}`, false),
    recover: noNuls,
  },
  {
    name: "UTF-16BE with a BOM, declared utf-16",
    contentType: "text/plain; charset=utf-16",
    body: (s) => utf16(`token=${s}`, true, true),
    recover: noNuls,
  },
  {
    name: "UTF-32LE declared utf-32, no BOM",
    contentType: "text/plain; charset=utf-32",
    body: (s) => utf32(`token=${s}`, false),
    recover: noNuls,
  },
  {
    name: "UTF-32BE with a BOM",
    contentType: "text/plain; charset=utf-32",
    body: (s) => utf32(`token=${s}`, true, true),
    recover: noNuls,
  },
  {
    name: "UTF-32LE declared as UTF-8 (text with NULs between characters)",
    contentType: "application/json; charset=utf-8",
    body: (s) => utf32(`{"token":"${s}"}`, false),
    recover: (t) => noNuls(unUtf8(t)),
  },
  {
    name: "UTF-7 declared",
    contentType: "text/plain; charset=utf-7",
    body: (s) => `token=${utf7(s)}`,
    recover: unUtf7,
  },
];

/** Echoes with two layers: the inner encoding first, then the outer one. */
export const TWO_LAYERS: CredentialEcho[] = [
  textEcho(
    "base64 of percent-encoding",
    "text/plain",
    (s) => base64(percent(s)),
    (t) => unPercent(unBase64(t)),
  ),
  textEcho(
    "percent-encoding of base64",
    "text/plain",
    (s) => percent(base64(s)),
    (t) => unBase64(unPercent(t)),
  ),
  textEcho(
    "HTML references of percent-encoding",
    "text/html",
    (s) => htmlDecimal(percent(s)),
    (t) => unPercent(unHtml(t)),
  ),
  textEcho(
    "percent-encoding of HTML references",
    "text/plain",
    (s) => percent(htmlHex(s)),
    (t) => unHtml(unPercent(t)),
  ),
  textEcho(
    "base64 of base64",
    "text/plain",
    (s) => base64(base64(s)),
    (t) => unBase64(unBase64(t)),
  ),
  textEcho(
    "base16 of base64",
    "text/plain",
    (s) => base16(base64(s)),
    (t) => unBase64(unBase16(t)),
  ),
  textEcho(
    "base64 of base16",
    "text/plain",
    (s) => base64(base16(s)),
    (t) => unBase16(unBase64(t)),
  ),
  textEcho(
    "base32 of \\xHH escapes",
    "text/plain",
    (s) => base32(jsHex(s)),
    (t) => unJs(unBase32(t)),
  ),
  textEcho(
    "JSON \\u escapes of base64",
    "application/json",
    (s) => jsUnicode(base64(s)),
    (t) => unBase64(unJs(t)),
  ),
  textEcho(
    "quoted-printable of base64",
    "text/plain",
    (s) => quotedPrintable(base64(s)),
    (t) => unBase64(unQuotedPrintable(t)),
  ),
  textEcho(
    "base64url of HTML references",
    "text/plain",
    (s) => base64url(htmlDecimal(s)),
    (t) => unHtml(unBase64(t)),
  ),
  textEcho(
    "CSS escapes of HTML references",
    "text/css",
    (s) => css(htmlDecimal(s)),
    (t) => unHtml(unCss(t)),
  ),
  textEcho(
    "percent-encoded JSON \\u escapes",
    "text/plain",
    (s) => percent(jsUnicode(s)),
    (t) => unJs(unPercent(t)),
  ),
  textEcho(
    "HTML references of the reversed secret",
    "text/html",
    (s) => htmlHex(reverse(s)),
    (t) => reverse(unHtml(t)),
  ),
  {
    name: "UTF-16LE of percent-encoding",
    contentType: "application/octet-stream",
    body: (s) => utf16(percent(s), false),
    recover: (t) => unPercent(noNuls(t)),
  },
  textEcho(
    "base64 of UTF-16LE",
    "text/plain",
    (s) => btoa(latin1(utf16(s, false))),
    (t) => noNuls(unBase64(t)),
  ),
];

/**
 * Whether a text holds the secret in any letter case.
 * @param text - what was recovered
 * @param secret - the credential
 */
export const holds = (text: string, secret: string) =>
  text.toLowerCase().includes(secret.toLowerCase());
