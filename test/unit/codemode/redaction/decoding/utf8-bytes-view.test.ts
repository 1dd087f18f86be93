// Non-Latin-1 spellings inside raw bytes (src/codemode/redaction/decoding/utf8-bytes-view.ts):
// bytes were searched one character per byte (windows-1252) only, so a credential spelled in
// characters beyond Latin-1 and written as UTF-8 (full-width letters, byte-swapped UTF-16) got
// through `redactor.bytes`, what a raw request body and a binary answer go through, while the
// same characters in a text body were cut out.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { runToEnd } from "../../../../../src/codemode/redaction/slices";
import {
  utf8BytesViewInSlices,
  utf8Work,
} from "../../../../../src/codemode/redaction/decoding/utf8-bytes-view";
import { byteView } from "../../../../../src/codemode/redaction/byte-text";
import { SLICED_BODY, toApiResult } from "../../../../../src/codemode/request/api-response";
import { noiseBytes } from "../../../../helpers/redaction/seeded-noise";

const secret = "tok_9f8e7d6c5b4a3z";
const fullWidth = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00)).join("");
const swapped = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join("");
const fullWidthCodes = (s: string) =>
  [...s]
    .map((c) => c.charCodeAt(0))
    .join(",")
    .replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + d.charCodeAt(0) - 48));
const hex = (c: string) => c.charCodeAt(0).toString(16);
/** Each character followed by an invisible one (U+200B, U+2060), every fifth one `spell`ed. */
const joined = (s: string, spell: (c: string) => string) =>
  [...s]
    .map((c, i) => `${i % 5 === 0 ? spell(c) : c}${i % 2 === 0 ? "\u200b" : "\u2060"}`)
    .join("");
const encode = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("UTF-8 spellings inside raw bytes (hostile)", () => {
  const redactor = secretRedactor([secret]);
  const forms: [string, string][] = [
    ["full-width letters", fullWidth(secret)],
    ["byte-swapped UTF-16", swapped(secret)],
    ["full-width digits of a list", `codes: ${fullWidthCodes(secret)}`],
    ["full-width letters joined by U+200B", fullWidth(secret).split("").join("\u200b")],
    // A sequence beside a character only the UTF-8 reading drops: the byte view's steps decoded
    // it (`t`), but there U+200B is three windows-1252 characters no reading drops, and the
    // UTF-8 reading, which drops it, got no step beside what it dropped (attack16).
    ["letters joined by U+200B, some percent-encoded", joined(secret, (c) => `%${hex(c)}`)],
    ["letters joined by U+2060, some character references", joined(secret, (c) => `&#x${hex(c)};`)],
  ];
  it.each(forms)("cuts %s out of bytes as out of text", async (_, spelled) => {
    const text = `{"a":"é ok","b":"${spelled}","c":"中文"}`;
    // The text form was caught already: the bytes must be too.
    expect(redactor.text(text)).not.toContain(spelled);
    const bytes = encode(text);
    for (const out of [redactor.bytes(bytes), await redactor.cleanBytesInSlices(bytes)]) {
      expect(out).toBeDefined();
      const read = decode(out!);
      expect(read).not.toContain(spelled);
      expect(read).toContain("[REDACTED]");
      // Cut where the spelled copy's bytes were: the rest stays as it was.
      expect(read.startsWith(`{"a":"é ok","b":"`)).toBe(true);
      expect(read.endsWith(`","c":"中文"}`)).toBe(true);
    }
    // Among binary bytes too (invalid UTF-8 around it).
    const binary = Uint8Array.from([0xff, 0xc3, 0x28, ...encode(spelled), 0x80, 0xfe]);
    expect(decode(redactor.bytes(binary))).not.toContain(spelled);
  });

  // What codemode.request() hands the program for a binary answer: the redacted bytes.
  it.each([
    ["small", 0],
    ["large (searched in slices)", SLICED_BODY],
  ])("cuts them out of a binary answer: %s", async (_, size) => {
    for (const [, spelled] of forms) {
      const body = Uint8Array.from([...encode("é".repeat(size / 2)), 0xff, ...encode(spelled), 0]);
      const result = await toApiResult(
        new Response(body, { headers: { "content-type": "application/octet-stream" } }),
        [secret],
      );
      expect(result.body).toBeInstanceOf(Uint8Array);
      expect(decode(result.body as Uint8Array)).not.toContain(spelled);
    }
  });

  it("leaves clean UTF-8 and binary bytes as they are (the same array)", () => {
    const clean = encode(`ｆｕｌｌ ｗｉｄｔｈ, 中文, ${swapped("tok_Liv")}`);
    expect(redactor.bytes(clean)).toBe(clean);
    const binary = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff);
    expect(redactor.bytes(binary)).toBe(binary);
  });
});

describe("the UTF-8 reading of bytes", () => {
  const view = (bytes: Uint8Array) => runToEnd(utf8BytesViewInSlices(bytes, byteView(bytes)));

  it("makes no view of bytes without a UTF-8 multi-byte sequence", () => {
    expect(view(encode("plain ASCII"))).toBeUndefined();
    // Lead bytes without continuations, continuations alone, overlongs and surrogates.
    expect(
      view(Uint8Array.from([0xc3, 0x41, 0x80, 0xbf, 0xc0, 0xaf, 0xed, 0xa0, 0x80])),
    ).toBeUndefined();
  });

  it("reads each sequence as its character, mapped to its bytes", () => {
    const bytes = Uint8Array.from([0x41, ...encode("ｔ中"), 0x99, ...encode("😀"), 0x42]);
    const read = view(bytes)!;
    // The stray 0x99 stays as windows-1252 reads it.
    expect(read.text).toBe("Aｔ中\u2122😀B");
    const start = read.text.indexOf("中");
    expect([read.origin!(start, false), read.origin!(start + 1, true)]).toEqual([4, 7]);
  });

  it("looks at each byte once", () => {
    const bytes = encode(`${"x".repeat(1000)}${"中é".repeat(1000)}`.repeat(10));
    const before = utf8Work.positions;
    view(bytes);
    expect(utf8Work.positions - before).toBeLessThanOrEqual(bytes.length);
  });
});

describe("the byte view", () => {
  // byteView reads bytes beyond ASCII through windows-1252's table and the UTF-16 decoder (issue
  // #40: the windows-1252 decoder was a quarter of a UTF-8 text answer's redaction): the text
  // must be exactly what windows-1252 makes, one character per byte, at any length and offset.
  const windows1252 = new TextDecoder("windows-1252");
  it("is windows-1252's text of every byte, across its chunks", () => {
    const every = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(byteView(every)).toBe(windows1252.decode(every));
    const noise = noiseBytes(200_003, 11);
    for (const bytes of [noise, noise.subarray(1), encode("ｆｕｌｌ 東京 €".repeat(9_000))]) {
      const view = byteView(bytes);
      expect(view.length).toBe(bytes.length);
      expect(view).toBe(windows1252.decode(bytes));
    }
    // A byte order mark's bytes stay three characters, first or not.
    const bom = encode("\ufeffx\ufeff");
    expect(byteView(bom)).toBe(windows1252.decode(bom));
  });
});
