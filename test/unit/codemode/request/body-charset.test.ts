/**
 * The ASCII fast path of body decoding (src/codemode/body-charset.ts): an all-ASCII body is read
 * once as UTF-8 and that text stands in for both the byte view of the search and the decoded
 * body, but only when the declared charset reads ASCII as itself; every other body (UTF-16 or
 * UTF-32 spelled in ASCII bytes, a BOM, non-ASCII bytes, a stray invalid byte) decodes as before.
 */
import { describe, expect, it } from "vitest";
import {
  asciiText,
  decodeBody,
  utf8Reading,
  wellFormedUtf8Text,
} from "../../../../src/codemode/request/body-charset";

const bytes = (...values: number[]) => new Uint8Array(values);
const ascii = (text: string) => new TextEncoder().encode(text);

describe("asciiText", () => {
  it("is the text of an all-ASCII body, NULs included (UTF-16 bytes of ASCII letters)", () => {
    expect(asciiText(ascii('{"a":"b"}'))).toBe('{"a":"b"}');
    expect(asciiText(bytes(0x6b, 0, 0x39, 0))).toBe("k\x009\0");
  });

  it("is undefined for anything else: non-ASCII, an invalid byte, a BOM, nothing", () => {
    expect(asciiText(ascii("café"))).toBeUndefined();
    expect(asciiText(bytes(0x61, 0x80, 0x62))).toBeUndefined();
    expect(asciiText(bytes(0xef, 0xbb, 0xbf, 0x61))).toBeUndefined();
    expect(asciiText(bytes(0x61, 0xff))).toBeUndefined();
    expect(asciiText(bytes())).toBeUndefined();
  });
});

describe("decodeBody with the ASCII text given", () => {
  it("uses it for ASCII charsets and no charset", () => {
    const body = ascii("hello");
    for (const type of [
      "application/json",
      "text/plain; charset=utf-8",
      "text/html; charset=ISO-8859-1",
    ])
      expect(decodeBody(body, type, "hello")).toEqual({
        kind: "text",
        text: "hello",
        sameAsBytes: true,
      });
  });

  it("still decodes a body whose charset spells text otherwise (UTF-16, UTF-32, UTF-7)", () => {
    const utf16 = bytes(0x6b, 0, 0x39, 0);
    const given = asciiText(utf16);
    expect(decodeBody(utf16, "text/plain; charset=utf-16le", given)).toMatchObject({
      text: "k9",
      sameAsBytes: false,
    });
    const utf32 = bytes(0x6b, 0, 0, 0, 0x39, 0, 0, 0);
    expect(decodeBody(utf32, "text/plain; charset=utf-32le", asciiText(utf32))).toMatchObject({
      text: "k9",
    });
    expect(decodeBody(ascii("+AGs-"), "text/plain; charset=utf-7", "+AGs-")).toMatchObject({
      kind: "unreadable",
    });
  });
});

// Which text bodies the byte search does not read as UTF-8 (src/codemode/request/api-response.ts):
// only those decodeBody reads as UTF-8 from well-formed UTF-8, whose text is that reading.
describe("wellFormedUtf8Text: which bodies skip the byte search's UTF-8 reading", () => {
  const cjk = ascii('{"名前":"ｆｕｌｌ ｗｉｄｔｈ 中文","é":"😀"}');
  const bom = bytes(0xef, 0xbb, 0xbf, ...cjk);

  it.each([
    ["no charset", cjk, "application/json"],
    ["charset=utf-8", cjk, "application/json; charset=utf-8"],
    ["charset=UTF-8, quoted", cjk, 'text/plain; charset="UTF-8"'],
    ["charset=utf8", cjk, "text/plain;charset=utf8"],
    ["charset=unicode-1-1-utf-8", cjk, "text/plain; charset=unicode-1-1-utf-8"],
    ["a label TextDecoder does not know (read as UTF-8)", cjk, "text/plain; charset=x-made-up"],
    ["a UTF-8 BOM, no charset", bom, "text/plain"],
    ["a UTF-8 BOM over a declared latin1", bom, "text/plain; charset=iso-8859-1"],
  ])("skips: %s, with the very text decodeBody reads", (_, body, type) => {
    const text = wellFormedUtf8Text(body, type);
    expect(text).toBeDefined();
    const decoded = decodeBody(body, type);
    expect(decoded.kind === "text" && decoded.text).toBe(text);
    expect(text).toBe(new TextDecoder().decode(cjk));
    // With the reading made for the ASCII check: the same text (decoded there, not again).
    expect(wellFormedUtf8Text(body, type, utf8Reading(body))).toBe(text);
  });

  it.each([
    ["charset=iso-8859-1", cjk, "text/plain; charset=iso-8859-1"],
    ["charset=latin1", cjk, "application/json; charset=latin1"],
    ["charset=windows-1252", cjk, "text/plain; charset=windows-1252"],
    ["charset=shift_jis", cjk, "text/plain; charset=shift_jis"],
    ["charset=utf-16le", cjk, "text/plain; charset=utf-16le"],
    ["charset=utf-32", cjk, "text/plain; charset=utf-32"],
    ["charset=utf-7 (withheld anyway)", cjk, "text/plain; charset=utf-7"],
    ["a UTF-16 BOM over a declared UTF-8", bytes(0xff, 0xfe, ...cjk), "text/plain; charset=utf-8"],
    ["a stray continuation byte", bytes(...cjk, 0x80), "application/json"],
    ["a soft hyphen byte (0xAD) alone", bytes(0x61, 0xad, 0x62), "text/plain; charset=utf-8"],
    ["a sequence cut short at the end", bytes(...cjk, 0xe4, 0xb8), "application/json"],
    ["an overlong form", bytes(0x61, 0xc0, 0xaf), "text/plain"],
    ["a surrogate", bytes(0x61, 0xed, 0xa0, 0x80), "text/plain"],
  ])("keeps it: %s", (_, body, type) => {
    expect(wellFormedUtf8Text(body, type)).toBeUndefined();
    expect(wellFormedUtf8Text(body, type, utf8Reading(body))).toBeUndefined();
  });
});

// api-response.ts decodes a body once: the ASCII check's strict UTF-8 reading is also the text
// wellFormedUtf8Text would decode (a 4 MB CJK answer was decoded twice, ~15 % of its redaction).
describe("utf8Reading: one decode for the ASCII check and the UTF-8 text", () => {
  const cjk = ascii('{"名前":"ｆｕｌｌ ｗｉｄｔｈ 中文","é":"😀"}');

  it("holds the strict UTF-8 text of a well-formed body, and its ASCII text only when all ASCII", () => {
    expect(utf8Reading(cjk)).toEqual({
      decoded: true,
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(cjk),
      ascii: undefined,
    });
    expect(utf8Reading(ascii('{"a":"b"}'))).toEqual({
      decoded: true,
      text: '{"a":"b"}',
      ascii: '{"a":"b"}',
    });
    // One of each length of sequence: each shortens the text, so none passes as ASCII.
    for (const char of ["é", "中", "😀"])
      expect(utf8Reading(ascii(`a${char}`))).toMatchObject({ text: `a${char}`, ascii: undefined });
  });

  it("holds no text for an invalid sequence, and decodes nothing whose first byte is not ASCII", () => {
    expect(utf8Reading(bytes(...cjk, 0x80))).toEqual({
      decoded: true,
      text: undefined,
      ascii: undefined,
    });
    expect(utf8Reading(bytes(0x61, 0xad, 0x62)).text).toBeUndefined();
    expect(utf8Reading(bytes(0xef, 0xbb, 0xbf, ...cjk)).decoded).toBe(false);
    expect(utf8Reading(ascii("中文")).decoded).toBe(false);
    expect(utf8Reading(bytes()).decoded).toBe(false);
  });

  it("is what wellFormedUtf8Text returns for a UTF-8 body, without decoding it again", () => {
    // A reading whose text differs from the bytes' shows which one is returned.
    const reading = { decoded: true, text: "the reading", ascii: undefined };
    expect(wellFormedUtf8Text(cjk, "application/json", reading)).toBe("the reading");
    expect(wellFormedUtf8Text(cjk, "application/json", { ...reading, text: undefined })).toBe(
      undefined,
    );
    // Not for another charset: its label decides first.
    expect(wellFormedUtf8Text(cjk, "text/plain; charset=latin1", reading)).toBeUndefined();
    // Not decoded: wellFormedUtf8Text decodes the bytes itself.
    const notDecoded = { decoded: false, text: undefined, ascii: undefined };
    expect(wellFormedUtf8Text(cjk, "application/json", notDecoded)).toBe(
      new TextDecoder().decode(cjk),
    );
  });
});
