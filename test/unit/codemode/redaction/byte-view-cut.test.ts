// Bytes cut to their long stretches are read from the bytes (issue #40: the host's memory): the
// whole byte view of 4 MiB of random bytes was an 8 MB two-byte string (windows-1252 shows
// 0x80–0x9F as `€`, `‚`, `™`, …) made and held while the stretches were cut, and 8 MB more of its
// pieces. Now only the kept bytes are viewed; the text the readings get is the same (the view is
// a function of each byte alone), so spellings through 0x80–0x9F bytes are still cut out.
import { describe, expect, test } from "vitest";
import { byteCodes, byteView, byteViewWork } from "../../../../src/codemode/redaction/byte-text";
import { stretchWork } from "../../../../src/codemode/redaction/decoding/long-stretches";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { noiseBytes } from "../../../helpers/redaction/seeded-noise";

const secret = "cf-canary-token-6f1d2c9a8b7e";
const redactor = secretRedactor(Object.freeze([secret]));
const encoder = new TextEncoder();
const utf8 = (text: string) => [...encoder.encode(text)];
const hex = (b: number) => b.toString(16).padStart(2, "0");

/** `spelled` between 128 KiB of random bytes on each side. */
const amongNoise = (spelled: number[], seed = 11) =>
  Uint8Array.from([...noiseBytes(131_072, seed), ...spelled, ...noiseBytes(131_072, seed + 1)]);

/** Whether the marker was written (NULs of a UTF-16 copy's layout left out), or all withheld. */
const marked = (out: Uint8Array | undefined) =>
  out === undefined || byteView(out).replaceAll("\0", "").includes("[REDACTED]");

describe("the byte view of bytes cut to their long stretches", () => {
  test("is made of the kept bytes only, not of all of them", async () => {
    const body = noiseBytes(300_000, 5);
    const [cuts, viewed] = [stretchWork.cuts, byteViewWork.characters];
    expect(redactor.bytes(body)).toBe(body);
    expect(await redactor.cleanBytesInSlices(body)).toBe(body);
    expect(stretchWork.cuts - cuts).toBe(2);
    // Before: at least the body's length per search (the whole view), twice.
    expect(byteViewWork.characters - viewed).toBeLessThan(body.length * 0.5);
  });

  test("shows each byte as the whole view does", () => {
    const every = Uint8Array.from({ length: 256 }, (_, b) => b);
    const shown = byteView(every);
    const codes = byteCodes();
    for (let b = 0; b < 256; b++) expect(codes[b], hex(b)).toBe(shown.charCodeAt(b));
    // A part's view is that part of the whole's (the cut's text is built so).
    const noise = noiseBytes(70_000, 9);
    expect(byteView(noise.subarray(1_000, 50_000))).toBe(byteView(noise).slice(1_000, 50_000));
  });
});

// Secrets whose copies are spelled through the bytes windows-1252 shows beyond Latin-1: what the
// readings make of `™`, `…` and the quotes, and UTF-8 whose continuation bytes are 0x80–0x9F.
describe("copies spelled through 0x80–0x9F bytes are cut out of random bytes", () => {
  const cases: Record<string, [string, number[]]> = {
    // ™ (0x99) folds to `TM`, … (0x85) to `...`: a secret holding them is read through the byte.
    "`TM` as ™": [
      "cf-TM-canary-token-6f1d2c9a",
      utf8("cf-").concat([0x99], utf8("-canary-token-6f1d2c9a")),
    ],
    "`...` as …": [
      "cf-canary...token-6f1d2c9a",
      utf8("cf-canary").concat([0x85], utf8("token-6f1d2c9a")),
    ],
    "full-width UTF-8 (continuations 0x80–0x9F)": [
      secret,
      utf8([...secret].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("")),
    ],
    "percent, between € and ™ bytes": [
      secret,
      [0x80, ...utf8([...secret].map((c) => `%${hex(c.charCodeAt(0))}`).join("")), 0x99],
    ],
    "one-character strings of ‚ quotes around it": [
      secret,
      [0x82, ...utf8(JSON.stringify([...secret])), 0x82],
    ],
    "UTF-16LE beside Œ and ž": [
      secret,
      [0x8c, ...[...secret].flatMap((c) => [c.charCodeAt(0), 0]), 0x9e],
    ],
    "hex between … bytes": [secret, [0x85, ...utf8(utf8(secret).map(hex).join("")), 0x85]],
  };
  for (const [name, [words, spelled]] of Object.entries(cases))
    test(name, async () => {
      const search = secretRedactor(Object.freeze([words]));
      const body = amongNoise(spelled);
      const cuts = stretchWork.cuts;
      expect(marked(search.bytes(body))).toBe(true);
      expect(marked(await search.cleanBytesInSlices(body))).toBe(true);
      // Both searched the long stretches only (the path whose view changed).
      expect(stretchWork.cuts - cuts).toBeGreaterThanOrEqual(2);
    });
});
