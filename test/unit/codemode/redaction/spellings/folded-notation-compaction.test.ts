// The folded view's notation views (octal numbers, code points) are compacted only where the
// notation changed them, and the folded view itself once (src/codemode/redaction/decoding/
// spelled-views.ts, `foldedNotations`; issue #40: random bytes had two whole 4 MB compactions
// for a few hundred changes). Both parts must still read what the whole compactions read: a
// notation spelled with folding separators among random text, and a copy that only the folded
// view's compaction joins (UTF-8 of letterlike symbols whose lead byte a zero-width space keeps
// apart from its continuation bytes: folding drops the space, compaction then reads the
// sequence) far from any notation.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { noiseText } from "../../../../helpers/redaction/seeded-noise";

/** Random Latin-1 text (a fixed generator). */
const noise = noiseText;

/** Letterlike symbols NFKC folds to ASCII letters, each UTF-8 `E2 84 xx`. */
const LETTERLIKE: Record<string, number> = {
  Z: 0x2124,
  E: 0x2130,
  P: 0x2119,
  H: 0x210d,
  L: 0x2112,
  I: 0x2110,
  N: 0x2115,
  g: 0x210a,
  C: 0x2102,
  l: 0x2113,
  B: 0x212c,
  R: 0x211b,
  Q: 0x211a,
};

/** Each character as its symbol's UTF-8 read one character per byte, a U+200B after the lead. */
const splitUtf8 = (s: string) =>
  [...s]
    .map((c) => {
      const [lead, ...rest] = new TextEncoder().encode(String.fromCodePoint(LETTERLIKE[c]!));
      return `${String.fromCharCode(lead!)}\u200b${String.fromCharCode(...rest)}`;
    })
    .join("");

/** An octal run, so the folded view has a notation view (each escape a letter). */
const OCTAL_RUN = "\\101\\102\\103\\104\\105\\106\\107\\110\\111";
/** A digit before a no-break space: what makes the folded view (a list that folds). */
const FOLDED_LIST_START = "1\u00a0";

describe("the folded view's notations, compacted where they changed (hostile)", () => {
  it("cuts a copy only the folded view's compaction reads, far from the notation", () => {
    const secret = "ZEPHLINgCHlBRQ";
    const redactor = secretRedactor([secret]);
    const spelled = splitUtf8(secret);
    // Random text between: inert characters keep the copy out of the notation's segments.
    const body = `${noise(3_000, 5)} ${FOLDED_LIST_START} ${OCTAL_RUN} ${noise(3_000, 7)} ${spelled} ${noise(3_000, 9)}`;
    const out = redactor.text(body);
    expect(out).not.toContain(spelled);
    expect(out).toContain("[REDACTED]");
  });

  const secret = "tok_9f8e7d6c5b4a3z";
  const redactor = secretRedactor([secret]);
  const codePoint = (c: string) =>
    `U+${(c.charCodeAt(0) - 0x20 + 0xff00).toString(16).toUpperCase()}`;
  const spellings: [string, string][] = [
    // Code points of full-width letters, joined by ideographic commas: a notation only once
    // folded, of characters only compaction reads as the copy.
    [
      "code points of full-width letters, ideographic commas",
      [...secret].map(codePoint).join("、"),
    ],
    ["code points of full-width letters, full-width commas", [...secret].map(codePoint).join("，")],
  ];
  it.each(spellings)("cuts %s out among random text", (_, spelled) => {
    const body = `${noise(3_000, 5)} ${OCTAL_RUN} ${noise(3_000, 7)} ${spelled} ${noise(3_000, 9)}`;
    const out = redactor.text(body);
    expect(out).not.toContain(spelled);
    expect(out).toContain("[REDACTED]");
  });
});
