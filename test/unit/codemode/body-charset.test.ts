/**
 * The ASCII fast path of body decoding (src/codemode/body-charset.ts): an all-ASCII body is read
 * once as UTF-8 and that text stands in for both the byte view of the search and the decoded
 * body, but only when the declared charset reads ASCII as itself; every other body (UTF-16 or
 * UTF-32 spelled in ASCII bytes, a BOM, non-ASCII bytes, a stray invalid byte) decodes as before.
 */
import { describe, expect, it } from "vitest";
import { asciiText, decodeBody } from "../../../src/codemode/request/body-charset";

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
