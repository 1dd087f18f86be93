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
  // UTF-16 under a character-level encoding: `q=%74%00%6f%00…` as an API would echo a query
  // it decodes to UTF-16LE; the NULs exist only once the encoding is undone.
  textEcho(
    "percent-encoding of UTF-16LE",
    "text/plain",
    (s) => percent(latin1(utf16(s, false))),
    (t) => noNuls(unPercent(t)),
  ),
  textEcho(
    "percent-encoding of UTF-16BE",
    "text/plain",
    (s) => percent(latin1(utf16(s, true))),
    (t) => noNuls(unPercent(t)),
  ),
  textEcho(
    "JSON \\u escapes of UTF-16LE",
    "application/json",
    (s) => jsUnicode(latin1(utf16(s, false))),
    (t) => noNuls(unJs(t)),
  ),
  textEcho(
    "HTML references of UTF-16BE",
    "text/html",
    (s) => htmlDecimal(latin1(utf16(s, true))),
    (t) => noNuls(unHtml(t)),
  ),
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

// Issue #41: spellings rather than encodings, and what a program would do to read them back.
const rot13 = (t: string) =>
  t.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
const fullWidth = (t: string) =>
  [...t]
    .map((c) => (c > " " && c <= "~" ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c))
    .join("");
const hexPairs = (t: string) => codes(t).map(hex2);
const bits = (t: string) => codes(t).map((b) => b.toString(2).padStart(8, "0"));
const BASE32HEX = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
const base32hex = (t: string) => [...base32(t)].map((c) => BASE32HEX[BASE32.indexOf(c)]).join("");
/** `hexdump -C` of a text, as the tool prints it (offset, two groups of 8 bytes, text column). */
export const hexdumpC = (t: string) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)];
    const hexes = row.map(hex2);
    const left = hexes.slice(0, 8).join(" ");
    const right = hexes.slice(8).join(" ");
    const columns = `${left.padEnd(23)}  ${right.padEnd(23)}`;
    const shown = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}  ${columns}  |${shown}|`);
  }
  lines.push(bytes.length.toString(16).padStart(8, "0"));
  return lines.join("\n");
};

const unDecimal = (t: string) =>
  t.replace(/\d{1,7}(?:[\s,.:;]+\d{1,7}){7,}/g, (run) =>
    (run.match(/\d+/g) ?? [])
      .map((n) => (Number(n) <= 0x10ffff ? String.fromCodePoint(Number(n)) : ""))
      .join(""),
  );
const unHexList = (t: string) =>
  t.replace(/(?:0x)?[0-9a-f]{2}(?:[\s,.:;]+(?:0x)?[0-9a-f]{2}){7,}/gi, (run) =>
    (run.match(/(?:0x)?[0-9a-f]{2}/gi) ?? [])
      .map((h) => String.fromCharCode(Number.parseInt(h.replace(/^0x/i, ""), 16)))
      .join(""),
  );
const unBinary = (t: string) =>
  t.replace(/[01]{8}(?:\s*[01]{8}){7,}/g, (run) =>
    (run.replace(/\s/g, "").match(/.{8}/g) ?? [])
      .map((b) => String.fromCharCode(Number.parseInt(b, 2)))
      .join(""),
  );
const unHexdump = (t: string) => {
  const lines = [...t.matchAll(/[0-9a-f]{8} +((?:[0-9a-f]{2} +)+) *\|([^|\n]*)\|/g)];
  const hex = lines.map((m) => m[1]).join(" ");
  return `${unHexList(hex.trim().replace(/\s+/g, " "))} ${lines.map((m) => m[2]).join("")}`;
};
const unChars = (t: string) =>
  t.replace(/\[\s*"(?:[^"\\]|\\.)"(?:\s*,\s*"(?:[^"\\]|\\.)")*\s*\]/g, (array) => {
    try {
      return (JSON.parse(array) as string[]).join("");
    } catch {
      return array;
    }
  });
const nfkc = (t: string) => t.normalize("NFKC");
const noSpaces = (t: string) => t.replace(/\s+/g, "");
const noZeroWidth = (t: string) => t.replace(/[\u200b-\u200d\u2060\ufeff]/g, "");
const unBase32hex = (t: string) =>
  runs(t, /[0-9A-V]{8,}=*/gi, (run) => {
    let [bits_, value, out] = [0, 0, ""];
    for (const c of run.toUpperCase().replace(/=+$/, "")) {
      value = ((value << 5) | BASE32HEX.indexOf(c)) & 0xffff;
      bits_ += 5;
      if (bits_ >= 8) {
        out += String.fromCharCode((value >>> (bits_ - 8)) & 0xff);
        bits_ -= 8;
      }
    }
    return out;
  });
const unUtf8Percent = (t: string) =>
  t.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });

// Found by the attack review: list separators and bit prefixes beyond `, . : ;`, invisible
// characters outside the first list of ranges, and spellings over a folding or an invisible join.
const unSeparated = (t: string, base: number, item: string) =>
  t.replace(new RegExp(`${item}(?:[\\s,.:;|/-]+${item}){7,}`, "gi"), (run) =>
    (run.match(new RegExp(item, "gi")) ?? [])
      .map((n) => String.fromCodePoint(Number.parseInt(n.replace(/^0[bx]/i, ""), base)))
      .join(""),
  );
const noInvisible = (t: string) => t.replace(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu, "");

/** An echo whose encoding is a JSON value, placed in the envelope as JSON (not in a string). */
const jsonEcho = (
  name: string,
  encode: (s: string) => unknown,
  recover: (t: string) => string,
): CredentialEcho => ({
  name,
  contentType: "application/json",
  body: (s) => `{"note":"you sent","authorization":${JSON.stringify(encode(s))}}`,
  recover,
});

/** Spelled-out echoes (issue #41): numbers, lists, dumps, folding, ROT13, base32hex. */
export const SPELLED: CredentialEcho[] = [
  jsonEcho("a Node Buffer as JSON", (s) => ({ type: "Buffer", data: codes(s) }), unDecimal),
  jsonEcho("a JSON array of bytes", (s) => codes(s), unDecimal),
  textEcho("decimal codes joined by ','", "text/plain", (s) => codes(s).join(","), unDecimal),
  textEcho("decimal codes joined by '.'", "text/plain", (s) => codes(s).join("."), unDecimal),
  textEcho("decimal codes joined by spaces", "text/plain", (s) => codes(s).join(" "), unDecimal),
  textEcho("decimal codes joined by ':'", "text/plain", (s) => codes(s).join(":"), unDecimal),
  textEcho("hex bytes joined by spaces", "text/plain", (s) => hexPairs(s).join(" "), unHexList),
  textEcho("hex bytes joined by ':'", "text/plain", (s) => hexPairs(s).join(":"), unHexList),
  textEcho(
    "0x-prefixed hex bytes joined by ', '",
    "text/plain",
    (s) =>
      hexPairs(s)
        .map((h) => `0x${h}`)
        .join(", "),
    unHexList,
  ),
  {
    name: "a hexdump -C dump",
    contentType: "text/plain",
    body: (s) => `request headers:\n${hexdumpC(`Authorization: Bearer ${s}\r\n`)}\n`,
    recover: unHexdump,
  },
  textEcho("8-bit binary joined by spaces", "text/plain", (s) => bits(s).join(" "), unBinary),
  textEcho("8-bit binary as one run", "text/plain", (s) => bits(s).join(""), unBinary),
  jsonEcho("a JSON array of characters", (s) => [...s], unChars),
  textEcho(
    "base64 with a space every 4 characters",
    "text/plain",
    (s) => base64(s).replace(/(.{4})/g, "$1 "),
    (t) => unBase64(noSpaces(t)),
  ),
  textEcho(
    "base64 in lines of 16",
    "text/plain",
    (s) => base64(`Bearer ${s}`).replace(/(.{16})/g, "$1\\r\\n"),
    (t) => unBase64(t.replace(/\\r\\n/g, "")),
  ),
  textEcho("ROT13", "text/plain", rot13, rot13),
  textEcho(
    "ROT13 of the reversed secret",
    "text/plain",
    (s) => rot13(reverse(s)),
    (t) => reverse(rot13(t)),
  ),
  textEcho("full-width letters", "text/plain", fullWidth, nfkc),
  textEcho("base32hex", "text/plain", base32hex, unBase32hex),
  textEcho("U+200B between characters", "text/plain", (s) => [...s].join("\u200b"), noZeroWidth),
  textEcho("spaces between characters", "text/plain", (s) => [...s].join(" "), noSpaces),
  textEcho(
    "hex bytes joined by '-' (.NET BitConverter)",
    "text/plain",
    (s) => hexPairs(s).join("-").toUpperCase(),
    (t) => unSeparated(t, 16, "[0-9a-f]{2}"),
  ),
  textEcho(
    "decimal codes joined by '|'",
    "text/plain",
    (s) => codes(s).join("|"),
    (t) => unSeparated(t, 10, "\\d{1,7}"),
  ),
  textEcho(
    "decimal codes joined by '/'",
    "text/plain",
    (s) => codes(s).join("/"),
    (t) => unSeparated(t, 10, "\\d{1,7}"),
  ),
  textEcho(
    "Python bin() of each byte (0b, 7 bits)",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => `0b${b.toString(2)}`)
        .join(" "),
    (t) => unSeparated(t, 2, "0b[01]{1,8}"),
  ),
  textEcho(
    "U+E0020 (tag space) between characters",
    "text/plain",
    (s) => [...s].join("\u{E0020}"),
    noInvisible,
  ),
  textEcho(
    "U+E0100 (variation selector 17) between characters",
    "text/plain",
    (s) => [...s].join("\u{E0100}"),
    noInvisible,
  ),
  textEcho("U+FFF9 between characters", "text/plain", (s) => [...s].join("\ufff9"), noInvisible),
  textEcho(
    "U+2800 (braille blank) between characters",
    "text/plain",
    (s) => [...s].join("\u2800"),
    (t) => t.replaceAll("\u2800", ""),
  ),
];

/** Spellings composed with a form read before (the inner one first). */
export const SPELLED_PAIRS: CredentialEcho[] = [
  textEcho(
    "percent-encoded Node Buffer JSON",
    "text/plain",
    (s) => encodeURIComponent(JSON.stringify({ type: "Buffer", data: codes(s) })),
    (t) => unDecimal(unPercent(t)),
  ),
  textEcho(
    "base64 of decimal codes",
    "text/plain",
    (s) => base64(codes(s).join(",")),
    (t) => unDecimal(unBase64(t)),
  ),
  textEcho(
    "decimal codes of a percent-encoding",
    "text/plain",
    (s) => codes(percent(s)).join(","),
    (t) => unPercent(unDecimal(t)),
  ),
  textEcho(
    "HTML references of full-width letters",
    "text/html",
    (s) => htmlDecimal(fullWidth(s)),
    (t) => nfkc(unHtml(t)),
  ),
  textEcho(
    "percent-encoded full-width letters",
    "text/plain",
    (s) => percent(fullWidth(s)),
    (t) => nfkc(unUtf8Percent(t)),
  ),
  textEcho(
    "full-width base64",
    "text/plain",
    (s) => fullWidth(base64(s)),
    (t) => unBase64(nfkc(t)),
  ),
  textEcho(
    "ROT13 of base64",
    "text/plain",
    (s) => rot13(base64(s)),
    (t) => unBase64(rot13(t)),
  ),
  textEcho(
    "base64 of ROT13",
    "text/plain",
    (s) => base64(rot13(s)),
    (t) => rot13(unBase64(t)),
  ),
  textEcho(
    "hex bytes joined by ':' of base64",
    "text/plain",
    (s) => hexPairs(base64(s)).join(":"),
    (t) => unBase64(unHexList(t)),
  ),
  textEcho(
    "JSON \\u escapes of U+200B-joined characters",
    "application/json",
    (s) => jsUnicode([...s].join("\u200b")),
    (t) => noZeroWidth(unJs(t)),
  ),
  textEcho(
    "base64 of full-width letters",
    "text/plain",
    (s) => base64(fullWidth(s)),
    (t) => nfkc(unUtf8(unBase64(t))),
  ),
  textEcho(
    "8-bit binary of a percent-encoding",
    "text/plain",
    (s) => bits(percent(s)).join(" "),
    (t) => unPercent(unBinary(t)),
  ),
  textEcho(
    "full-width decimal codes",
    "text/plain",
    (s) => fullWidth(codes(s).join(",")),
    (t) => unDecimal(nfkc(t)),
  ),
  textEcho(
    "base64 of U+200B-joined characters",
    "text/plain",
    (s) => base64([...s].join("\u200b")),
    (t) => noZeroWidth(unUtf8(unBase64(t))),
  ),
  textEcho(
    "percent-encoded tag-joined characters",
    "text/plain",
    (s) => percent([...s].join("\u{E0020}")),
    (t) => noInvisible(unUtf8Percent(t)),
  ),
  // UTF-16 bytes spelled out: the reading shows NULs between the characters.
  jsonEcho(
    "a JSON array of UTF-16LE bytes",
    (s) => [...utf16(s, false)],
    (t) => noNuls(unDecimal(t)),
  ),
  textEcho(
    "hex bytes of UTF-16LE joined by spaces",
    "text/plain",
    (s) => hexPairs(latin1(utf16(s, false))).join(" "),
    (t) => noNuls(unHexList(t)),
  ),
  textEcho(
    "spaces between the characters of base64",
    "text/plain",
    (s) => [...base64(s)].join(" "),
    (t) => unBase64(noSpaces(t)),
  ),
];

/** `xxd` of a text: offset and `:`, eight groups of two bytes, two spaces, the text column. */
export const xxd = (t: string) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)];
    const groups: string[] = [];
    for (let k = 0; k < row.length; k += 2)
      groups.push(
        row
          .slice(k, k + 2)
          .map(hex2)
          .join(""),
      );
    const shown = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}: ${groups.join(" ").padEnd(39)}  ${shown}`);
  }
  return lines.join("\n");
};
/** `od -x` of a text: octal offsets, 16-bit words in little-endian order (bytes swapped). */
const odX = (t: string) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const words: string[] = [];
    for (let k = at; k < Math.min(at + 16, bytes.length); k += 2)
      words.push(hex2(bytes[k + 1] ?? 0) + hex2(bytes[k]!));
    lines.push(`${at.toString(8).padStart(7, "0")} ${words.join(" ")}`);
  }
  lines.push(bytes.length.toString(8).padStart(7, "0"));
  return lines.join("\n");
};
/** `od -t x1` (hex bytes) or `od -b` (octal bytes) of a text: octal offsets, 16 bytes a line. */
const odBytes = (t: string, radix: 8 | 16) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)].map((b) =>
      b.toString(radix).padStart(radix === 8 ? 3 : 2, "0"),
    );
    lines.push(`${at.toString(8).padStart(7, "0")} ${row.join(" ")}`);
  }
  lines.push(bytes.length.toString(8).padStart(7, "0"));
  return lines.join("\n");
};
const unOdBytes = (t: string, radix: 8 | 16) =>
  [...t.matchAll(/^[0-7]{7}((?: [0-9a-f]{2,3})+)$/gm)]
    .flatMap((m) => m[1]!.trim().split(" "))
    .map((b) => String.fromCharCode(Number.parseInt(b, radix)))
    .join("");
const unXxd = (t: string) => {
  const lines = [...t.matchAll(/^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} )+) *(.*)$/gm)];
  const hex = lines.map((m) => m[1]!.replace(/\s+/g, "")).join("");
  const bytes = hex.match(/../g) ?? [];
  const decoded = bytes.map((h) => String.fromCharCode(Number.parseInt(h, 16))).join("");
  return `${decoded} ${lines.map((m) => m[2]).join("")}`;
};
const unOdX = (t: string) =>
  (t.match(/\b[0-9a-f]{4}\b/g) ?? [])
    .map((w) =>
      String.fromCharCode(Number.parseInt(w.slice(2), 16), Number.parseInt(w.slice(0, 2), 16)),
    )
    .join("");
const TAG = 0xe0000;
const asTags = (t: string) =>
  [...t].map((c) => String.fromCodePoint(TAG + c.charCodeAt(0))).join("");
const unTags = (t: string) =>
  [...t]
    .map((c) => {
      const code = c.codePointAt(0)!;
      return code > TAG && code < TAG + 0x80 ? String.fromCharCode(code - TAG) : c;
    })
    .join("");
const unQuoted = (t: string) => t.replace(/["']/g, "");

/** Spellings a second review recovered the credential from (issue #41, after SPELLED). */
export const SPELLED_MORE: CredentialEcho[] = [
  {
    name: "an xxd dump",
    contentType: "text/plain",
    body: (s) => `request headers:\n${xxd(`Authorization: Bearer ${s}\r\n`)}\n`,
    recover: unXxd,
  },
  {
    name: "an xxd dump of UTF-16LE",
    contentType: "text/plain",
    body: (s) => `request body:\n${xxd(latin1(utf16(`token=${s}`, false)))}\n`,
    recover: (t) => noNuls(unXxd(t)),
  },
  {
    name: "an od -x dump (little-endian words)",
    contentType: "text/plain",
    body: (s) => `request headers:\n${odX(`Authorization: Bearer ${s}\r\n`)}\n`,
    recover: unOdX,
  },
  {
    name: "an od -t x1 dump (hex bytes)",
    contentType: "text/plain",
    body: (s) => `request headers:\n${odBytes(`Authorization: Bearer ${s}\r\n`, 16)}\n`,
    recover: (t) => unOdBytes(t, 16),
  },
  {
    name: "an od -b dump (octal bytes)",
    contentType: "text/plain",
    body: (s) => `request headers:\n${odBytes(`Authorization: Bearer ${s}\r\n`, 8)}\n`,
    recover: (t) => unOdBytes(t, 8),
  },
  textEcho(
    "7-bit binary without prefix",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => b.toString(2))
        .join(" "),
    (t) => unSeparated(t, 2, "[01]{6,8}"),
  ),
  textEcho(
    "ROT13 of a percent-encoding",
    "text/plain",
    (s) => rot13(percent(s)),
    (t) => unPercent(rot13(t)),
  ),
  textEcho(
    "ROT13 of a lower-case percent-encoding",
    "text/plain",
    (s) => rot13(percent(s).toLowerCase()),
    (t) => unPercent(rot13(t)),
  ),
  jsonEcho(
    "a JSON array of decimal strings",
    (s) => codes(s).map(String),
    (t) => unDecimal(unQuoted(t)),
  ),
  jsonEcho(
    "a JSON array of hex strings",
    (s) => hexPairs(s),
    (t) => unHexList(unQuoted(t)),
  ),
  textEcho(
    "0x-prefixed hex bytes without separators",
    "text/plain",
    (s) =>
      hexPairs(s)
        .map((h) => `0x${h}`)
        .join(""),
    (t) => unHexList(t.replace(/(0x[0-9a-f]{2})(?=0x)/gi, "$1 ")),
  ),
  jsonEcho(
    "\\x escapes in a JSON string",
    (s) => jsHex(s),
    (t) => unJs(t.replaceAll("\\\\", "\\")),
  ),
  textEcho("Unicode tag characters", "text/plain", asTags, unTags),
  jsonEcho("Unicode tag characters in a JSON string", asTags, unTags),
  textEcho(
    "base64 of Unicode tag characters",
    "text/plain",
    (s) => base64(asTags(s)),
    (t) => unTags(unUtf8(unBase64(t))),
  ),
];

// Issue #41, third review: notations none of the readings above took, and dumps whose lines a log
// interleaves with its own.
const octal3 = (b: number) => b.toString(8).padStart(3, "0");
const atbash = (t: string) =>
  t.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
  });
const MORSE: Record<string, string> = Object.fromEntries(
  (
    "A.- B-... C-.-. D-.. E. F..-. G--. H.... I.. J.--- K-.- L.-.. M-- N-. O--- P.--. Q--.- R.-. " +
    "S... T- U..- V...- W.-- X-..- Y-.-- Z--.. 0----- 1.---- 2..--- 3...-- 4....- 5..... " +
    "6-.... 7--... 8---.. 9----. ..-.-.- /-..-. --....- _..--.-"
  )
    .split(" ")
    .map((entry) => [entry[0]!, entry.slice(1)]),
);
const morse = (t: string) => [...t.toUpperCase()].map((c) => MORSE[c] ?? "").join(" ");
const unMorse = (t: string) => {
  const back = Object.fromEntries(Object.entries(MORSE).map(([c, code]) => [code, c]));
  return t.replace(/[.-]+(?: [.-]+){7,}/g, (run) =>
    run
      .split(" ")
      .map((code) => back[code] ?? "")
      .join(""),
  );
};
const unOctalList = (t: string) =>
  t.replace(/(?:0o|0)?[0-7]{2,3}(?:[\s,.:;]+(?:0o|0)?[0-7]{2,3}){7,}/g, (run) =>
    (run.match(/(?:0o|0)?[0-7]{2,3}/g) ?? [])
      .map((n) => String.fromCharCode(Number.parseInt(n.replace(/^0o/, ""), 8)))
      .join(""),
  );
const unOctalEscapes = (t: string) =>
  t.replace(/\\([0-7]{1,3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
const unCodePoints = (t: string) =>
  t.replace(/(?:U\+([0-9a-f]{2,6})|\\x\{([0-9a-f]{1,6})\})\s*/gi, (_, u?: string, x?: string) =>
    String.fromCodePoint(Number.parseInt((u ?? x)!, 16)),
  );
/** `xxd -e` of a text: offset and `:`, four little-endian groups of four bytes, the text column. */
export const xxdE = (t: string) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)];
    const groups: string[] = [];
    for (let k = 0; k < 16; k += 4)
      groups.push(
        row
          .slice(k, k + 4)
          .toReversed()
          .map(hex2)
          .join("")
          .padStart(8),
      );
    const shown = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}: ${groups.join(" ")}  ${shown}`);
  }
  return lines.join("\n");
};
const unXxdE = (t: string) => {
  const lines = [...t.matchAll(/^[0-9a-f]{8}: (.{35}) {2}(.*)$/gm)];
  const bytes = lines.flatMap((m) =>
    m[1]!.split(" ").flatMap((g) => (g.match(/../g) ?? []).toReversed()),
  );
  const decoded = bytes.map((h) => String.fromCharCode(Number.parseInt(h, 16))).join("");
  return `${decoded} ${lines.map((m) => m[2]).join("")}`;
};
const ESCAPED: Record<number, string> = { 0: "\\0", 9: "\\t", 10: "\\n", 13: "\\r" };
/** `od -c` (octal offsets) or `hexdump -c` (hex offsets) of a text: a character a cell. */
export const charDump = (t: string, offsetRadix: 8 | 16) => {
  const bytes = utf8(t);
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const cells = [...bytes.subarray(at, at + 16)].map((b) =>
      (ESCAPED[b] ?? (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : octal3(b))).padStart(4),
    );
    lines.push(`${at.toString(offsetRadix).padStart(7, "0")}${cells.join("")}`);
  }
  lines.push(bytes.length.toString(offsetRadix).padStart(7, "0"));
  return lines.join("\n");
};
const unCharDump = (t: string) =>
  [...t.matchAll(/^[0-9a-f]{7}((?:.{4})+)$/gm)]
    .flatMap((m) => m[1]!.match(/.{4}/g) ?? [])
    .map((cell) => (cell.trim() === "" ? " " : cell.trim()))
    .join("");
/** A dump with its offsets and hex columns (the first `width` characters a line) in upper case. */
const upperHexArea = (dump: string, width: number) =>
  dump
    .split("\n")
    .map((line) => line.slice(0, width).toUpperCase() + line.slice(width))
    .join("\n");
/** A dump whose lines a log interleaves with its own. */
const interleaved = (dump: string) =>
  dump.split("\n").join("\n[trace] request 42: still reading the request headers\n");

/** A dump echo: the request's header line, dumped, after a line of text. */
const dumpEcho = (
  name: string,
  dump: (t: string) => string,
  recover: (t: string) => string,
): CredentialEcho => ({
  name,
  contentType: "text/plain",
  body: (s) => `request headers:\n${dump(`Authorization: Bearer ${s}\r\n`)}\n`,
  recover,
});

/** Spellings a third review recovered the credential from (issue #41, after SPELLED_MORE). */
export const SPELLED_THIRD: CredentialEcho[] = [
  textEcho(
    "octal bytes joined by spaces",
    "text/plain",
    (s) => codes(s).map(octal3).join(" "),
    unOctalList,
  ),
  textEcho(
    "octal bytes without padding (printf %o)",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => b.toString(8))
        .join(" "),
    unOctalList,
  ),
  textEcho(
    "0-prefixed octal bytes joined by ','",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => `0${octal3(b)}`)
        .join(","),
    unOctalList,
  ),
  textEcho(
    "Python oct() of each byte",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => `0o${b.toString(8)}`)
        .join(", "),
    unOctalList,
  ),
  textEcho(
    "octal escapes",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => `\\${octal3(b)}`)
        .join(""),
    unOctalEscapes,
  ),
  textEcho(
    "octal escapes of some characters",
    "text/plain",
    (s) => s.replace(/[_./-]/g, (c) => `\\${octal3(c.charCodeAt(0))}`),
    unOctalEscapes,
  ),
  textEcho(
    "U+ code points joined by spaces",
    "text/plain",
    (s) =>
      [...s]
        .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)
        .join(" "),
    unCodePoints,
  ),
  textEcho(
    "U+ code points without padding, back to back",
    "text/plain",
    (s) => [...s].map((c) => `U+${c.codePointAt(0)!.toString(16)}`).join(""),
    unCodePoints,
  ),
  textEcho(
    "\\x{…} escapes (Perl)",
    "text/plain",
    (s) => [...s].map((c) => `\\x{${c.codePointAt(0)!.toString(16)}}`).join(""),
    unCodePoints,
  ),
  dumpEcho("an xxd -e dump (little-endian groups)", xxdE, unXxdE),
  dumpEcho("an od -c dump", (t) => charDump(t, 8), unCharDump),
  dumpEcho("a hexdump -c dump", (t) => charDump(t, 16), unCharDump),
  dumpEcho("an xxd dump with other lines between", (t) => interleaved(xxd(t)), unXxd),
  dumpEcho("an od -x dump with other lines between", (t) => interleaved(odX(t)), unOdX),
  dumpEcho(
    "an od -b dump with other lines between",
    (t) => interleaved(odBytes(t, 8)),
    (t) => unOdBytes(t, 8),
  ),
  dumpEcho(
    "a hexdump -C dump with other lines between",
    (t) => interleaved(hexdumpC(t)),
    unHexdump,
  ),
  dumpEcho(
    "an od -c dump with other lines between",
    (t) => interleaved(charDump(t, 8)),
    unCharDump,
  ),
  dumpEcho("an xxd -e dump with other lines between", (t) => interleaved(xxdE(t)), unXxdE),
  jsonEcho(
    "an xxd dump in a JSON string",
    (s) => xxd(`Authorization: Bearer ${s}\r\n`),
    (t) => unXxd(t.replaceAll("\\n", "\n")),
  ),
  // attack7: a non-ASCII character on the dump's last line left that line unread.
  jsonEcho(
    "an xxd dump in a JSON string with a non-ASCII character after it",
    (s) => `${xxd(`Authorization: Bearer ${s}\r\n`)}é`,
    (t) => unXxd(t.replaceAll("\\n", "\n")),
  ),
  {
    name: "an xxd dump in a JSON string before a field with a non-ASCII character",
    contentType: "application/json",
    body: (s) => `{"dump":${JSON.stringify(xxd(`Authorization: Bearer ${s}\r\n`))},"name":"José"}`,
    recover: (t) => unXxd(t.replaceAll("\\n", "\n")),
  },
  // attack7: ASCII letters between tag characters were dropped from the tag reading.
  textEcho(
    "ASCII letters alternating with tag characters",
    "text/plain",
    (s) => [...s].map((c, i) => (i % 2 ? asTags(c) : c)).join(""),
    unTags,
  ),
  textEcho(
    "percent-encoded ASCII letters alternating with tag characters",
    "text/plain",
    (s) => percent([...s].map((c, i) => (i % 2 ? asTags(c) : c)).join("")),
    (t) => unTags(unUtf8Percent(t)),
  ),
  // attack8: the in-place reading needed 8 tags, so a copy with fewer kept its visible rest.
  textEcho(
    "one tag character inside the copy",
    "text/plain",
    (s) => [...s].map((c, i) => (i === 11 ? asTags(c) : c)).join(""),
    unTags,
  ),
  textEcho(
    "every third character a tag character",
    "text/plain",
    (s) => [...s].map((c, i) => (i % 3 === 2 ? asTags(c) : c)).join(""),
    unTags,
  ),
  textEcho(
    "full-width letters alternating with tag characters",
    "text/plain",
    (s) => [...s].map((c, i) => (i % 2 ? asTags(c) : fullWidth(c))).join(""),
    (t) => unTags(t).normalize("NFKC"),
  ),
  // attack7: NFKC leaves the ideographic comma, so such a list was never read as one.
  textEcho(
    "char codes joined by ideographic commas",
    "text/plain",
    (s) => codes(s).join("\u3001"),
    (t) => unDecimal(t.replaceAll("\u3001", ",")),
  ),
  // attack8: base64 of such copies was never decoded: four bytes of tag to one of letter are
  // not text to the run-decoded view's sample.
  textEcho(
    "base64 of ASCII letters alternating with tag characters",
    "text/plain",
    (s) => base64([...s].map((c, i) => (i % 2 ? asTags(c) : c)).join("")),
    (t) => unTags(unUtf8(unBase64(t))),
  ),
  textEcho(
    "base64 of a copy with one tag character inside",
    "text/plain",
    (s) => base64([...s].map((c, i) => (i === 11 ? asTags(c) : c)).join("")),
    (t) => unTags(unUtf8(unBase64(t))),
  ),
  // attack8: a space before the ideographic comma kept the folded view from being made.
  textEcho(
    "char codes joined by a space and an ideographic comma",
    "text/plain",
    (s) => codes(s).join(" \u3001"),
    (t) => unDecimal(t.replaceAll("\u3001", ",")),
  ),
  textEcho(
    "char codes joined by a space and a full-width comma",
    "text/plain",
    (s) => codes(s).join(" \uff0c"),
    (t) => unDecimal(t.replaceAll("\uff0c", ",")),
  ),
  // attack8: separators NFKC folds to `,` or `.` but the folded view's trigger missed, and the
  // ideographic full stop, which NFKC leaves (as it leaves `、`).
  ...[
    ["small commas", "\ufe50"],
    ["small full stops", "\ufe52"],
    ["ideographic full stops", "\u3002"],
    ["half-width ideographic full stops", "\uff61"],
  ].map(([name, separator]) =>
    textEcho(
      `char codes joined by ${name}`,
      "text/plain",
      (s) => codes(s).join(separator),
      (t) => unDecimal(t.replaceAll(separator!, ",")),
    ),
  ),
  // attack8: the folded view was read by the list reader only, not by the notation views.
  textEcho(
    "octal numbers joined by full-width commas",
    "text/plain",
    (s) => codes(s).map(octal3).join("\uff0c"),
    (t) => unOctalList(t.replaceAll("\uff0c", ",")),
  ),
  textEcho(
    "code points joined by ideographic commas",
    "text/plain",
    (s) =>
      codes(s)
        .map((b) => `U+${b.toString(16).padStart(4, "0")}`)
        .join("\u3001"),
    (t) => unCodePoints(t.replaceAll("\u3001", "")),
  ),
  // attack8: `xxd -u` prints offsets and hex in upper case; only lower case was read.
  dumpEcho(
    "an xxd -u dump (upper case)",
    (t) => upperHexArea(xxd(t), 49),
    (t) => unXxd(t.toLowerCase()),
  ),
  dumpEcho(
    "an xxd -e -u dump (upper case)",
    (t) => upperHexArea(xxdE(t), 45),
    (t) => unXxdE(t.toLowerCase()),
  ),
  textEcho("Atbash", "text/plain", atbash, atbash),
  textEcho(
    "Atbash of the reversed secret",
    "text/plain",
    (s) => atbash(reverse(s)),
    (t) => reverse(atbash(t)),
  ),
  textEcho("Morse code", "text/plain", morse, unMorse),
];

/** The third review's notations composed with a form read before (the inner one first). */
export const SPELLED_THIRD_PAIRS: CredentialEcho[] = [
  textEcho(
    "percent-encoded octal escapes",
    "text/plain",
    (s) =>
      percent(
        codes(s)
          .map((b) => `\\${octal3(b)}`)
          .join(""),
      ),
    (t) => unOctalEscapes(unPercent(t)),
  ),
  jsonEcho(
    "octal escapes in a JSON string",
    (s) =>
      codes(s)
        .map((b) => `\\${octal3(b)}`)
        .join(""),
    (t) => unOctalEscapes(t.replaceAll("\\\\", "\\")),
  ),
  textEcho(
    "base64 of octal bytes joined by spaces",
    "text/plain",
    (s) => base64(codes(s).map(octal3).join(" ")),
    (t) => unOctalList(unBase64(t)),
  ),
  textEcho(
    "HTML references of U+ code points",
    "text/html",
    (s) => htmlDecimal([...s].map((c) => `U+${c.codePointAt(0)!.toString(16)}`).join(" ")),
    (t) => unCodePoints(unHtml(t)),
  ),
  textEcho(
    "base64 of U+ code points joined by spaces",
    "text/plain",
    (s) =>
      base64(
        [...s]
          .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)
          .join(" "),
      ),
    (t) => unCodePoints(unBase64(t)),
  ),
  textEcho(
    "U+ code points of full-width letters",
    "text/plain",
    (s) => [...fullWidth(s)].map((c) => `U+${c.codePointAt(0)!.toString(16)}`).join(" "),
    (t) => nfkc(unCodePoints(t)),
  ),
  textEcho(
    "octal bytes of a percent-encoding",
    "text/plain",
    (s) => codes(percent(s)).map(octal3).join(" "),
    (t) => unPercent(unOctalList(t)),
  ),
];

// The encoders and decoders above, for tables kept in files of their own
// (./mixed-layer-echoes.ts).
export {
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
};
