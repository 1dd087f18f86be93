// The byte-swapped UTF-16 view (src/codemode/redaction/spellings/swapped-utf16-view.ts): UTF-16BE
// decoded as little-endian gives `t` as U+7400; the view reads runs of such characters back, and
// makes no view of text that merely holds a few of them (CJK: U+4E00 is `一`).
import { describe, expect, it } from "vitest";
import { originalRange } from "../../../../../src/codemode/redaction/decoding/decoded-views";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { runToEnd } from "../../../../../src/codemode/redaction/slices";
import {
  swappedUtf16ViewInSlices,
  swappedWork,
} from "../../../../../src/codemode/redaction/spellings/swapped-utf16-view";
import type { View } from "../../../../../src/codemode/redaction/view-builder";

const swapped = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join("");
const view = (text: string) => runToEnd(swappedUtf16ViewInSlices({ text, origin: null }));

describe("the byte-swapped UTF-16 view", () => {
  it("reads a run of at least 8 byte-swapped characters back, in place", () => {
    const text = `id: ${swapped("tok_Live.9f8e")} ok`;
    const read = view(text) as View;
    expect(read.text).toBe("id: tok_Live.9f8e ok");
    // Each character maps to its own: a copy inside the run is cut out alone.
    const start = read.text.indexOf("Live");
    expect(originalRange(read, start, start + 4)).toEqual([8, 12]);
  });

  it("reads what TextDecoder makes of UTF-16BE bytes decoded as little-endian", () => {
    const bytes = Uint8Array.from([..."tok_Live"].flatMap((c) => [0, c.charCodeAt(0)]));
    expect(view(new TextDecoder("utf-16le").decode(bytes))?.text).toBe("tok_Live");
  });

  it("makes no view of ordinary text, or of fewer than 8 such characters in a row", () => {
    expect(view("plain ASCII, Ünïcödé and 中文")).toBeUndefined();
    // `一` (U+4E00, a zero low byte) and byte-swapped characters, in runs shorter than 8.
    expect(view(`一二三 ${swapped("tok_Liv")} 一${"\u4e00".repeat(3)}`)).toBeUndefined();
  });

  it("looks at each character once", () => {
    const text = `${"x".repeat(1000)}${swapped("abcdefghij").repeat(1000)}一`.repeat(10);
    const before = swappedWork.positions;
    view(text);
    expect(swappedWork.positions - before).toBeLessThanOrEqual(text.length);
  });

  it("reads them percent-encoded too, as UTF-8 one character per byte (hostile)", () => {
    // encodeURIComponent of the swapped copy: `%E7%90%80%E6%BC%80…`. Percent-decoding gives one
    // character per byte (`ç\x90\x80…`), which the view read as nothing: the credential left in
    // a result or a request, while percent-encoded full-width letters were cut out.
    const secret = "tok_9f8e7d6c5b4a3z";
    const redactor = secretRedactor([secret]);
    const encoded = encodeURIComponent(swapped(secret));
    const out = redactor.text(`id=${encoded}&ok=1`);
    expect(out).not.toContain(encoded);
    expect(out).toMatch(/^id=.*&ok=1$/);
    // The characters themselves, as percent-decoding leaves them.
    const bytes = unescape(encoded);
    expect(view(`a ${bytes} b`)?.text).toBe(`a ${secret} b`);
    // A run of fewer than 8 is still no view.
    expect(view(unescape(encodeURIComponent(swapped("tok_Liv"))))).toBeUndefined();
  });
});
