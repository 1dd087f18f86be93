// The edges of one decoding step's sequences (src/codemode/redaction/decoding/decode-step.ts):
// what each family reads at the end of a text, past its digits and around its terminators. The
// step hands each sequence back through fields instead of a tuple (issue #40: the tuples were
// young garbage per sequence); these pin that every sequence reads as it did, length included
// (the origin of the character after it).
import { describe, expect, test } from "vitest";
import { SegmentCut } from "../../../../../src/codemode/redaction/decoding/changed-segments";
import {
  ALL_FAMILIES,
  CSS_ESCAPE,
  decodeStep,
  PERCENT,
  SCRIPT_ESCAPE,
} from "../../../../../src/codemode/redaction/decoding/decode-step";

/** One step's text, or undefined when nothing decodes. */
const step = (text: string, families = ALL_FAMILIES) =>
  decodeStep({ text, origin: null }, families);

/** Where the view's last character came from in the text (the sequence's length shows there). */
const lastFrom = (text: string, families = ALL_FAMILIES) => {
  const view = step(text, families)!;
  return view.origin!(view.text.length - 1, false);
};

describe("one decoding step, at its sequences' edges", () => {
  test.each([
    // Percent: a byte, a UTF-16 unit (either `u`), too short at the end.
    ["%41b", "Ab"],
    ["%u0041b", "Ab"],
    ["%U0041b", "Ab"],
    ["%u004", undefined],
    ["a%4", undefined],
    // Character references: `;` optional, decimal and hex, beyond U+10FFFF left as it is.
    ["&#97;b", "ab"],
    ["&#97b", "ab"],
    ["&#x61;b", "ab"],
    ["&#X61g", "ag"],
    ["&#1114112;", undefined],
    ["a&#", undefined],
    ["&#;", undefined],
    // Named ones: the longest name (16 letters), unknown names, no `;` before the text's end.
    ["&DiacriticalGrave;b", "`b"],
    ["&sol;b", "/b"],
    ["&a;b", undefined],
    ["x&sol", undefined],
    ["&sol&sol;", "&sol/"],
    // Script escapes: `\x`, `\u`, `\u{…}` (unclosed: `\u` then the rest), single characters.
    ["\\x41b", "Ab"],
    ["\\u0041b", "Ab"],
    ["\\u{41}b", "Ab"],
    ["\\u{1F600}", "\u{1F600}"],
    ["\\u{41", "u{41"],
    ["\\nb", "\nb"],
    ["\\qb", "qb"],
    ["a\\", undefined],
    // CSS: up to 6 hex digits and one whitespace character after them, swallowed.
    ["\\41 b", "Ab"],
    ["\\41\tb", "Ab"],
    ["\\41\fb", "Ab"],
    ["\\41\r\nb", "A\nb"],
    ["\\41\vb", "A\vb"],
    ["\\0000411", "A1"],
    ["\\41", "A"],
    ["\\110000", undefined],
    // Quoted-printable: a byte, soft line breaks, a lone `\r`.
    ["=41b", "Ab"],
    ["a=\nb", "ab"],
    ["a=\r\nb", "ab"],
    ["a=\rb", undefined],
    ["a=4", undefined],
  ])("%j decodes to %j", (text, decoded) => {
    expect(step(text)?.text).toBe(decoded);
  });

  test("each sequence's length: the character after it comes from just past it", () => {
    expect(lastFrom("%41b")).toBe(3);
    expect(lastFrom("%u0041b")).toBe(6);
    expect(lastFrom("&#97;b")).toBe(5);
    expect(lastFrom("&#97b")).toBe(4);
    expect(lastFrom("&DiacriticalGrave;b")).toBe(18);
    expect(lastFrom("\\u{41}b")).toBe(6);
    expect(lastFrom("\\41 b")).toBe(4);
    expect(lastFrom("a=\r\nb")).toBe(4);
  });

  test("a family left out is not read, and its lead reads as the others do", () => {
    expect(step("%41", ALL_FAMILIES & ~PERCENT)).toBeUndefined();
    // Without script escapes `\x41` is no CSS escape either (`x` is no hex digit): a single one.
    expect(step("\\x41", CSS_ESCAPE)?.text).toBe("x41");
    expect(step("\\41 ", SCRIPT_ESCAPE)).toBeUndefined();
    expect(step("\\n", PERCENT)).toBeUndefined();
  });

  test("families and the sequences a step read: digits, or none (`\\n`, `&sol;`)", () => {
    expect(step("%41\\x41")!.digitFamilies).toBe(PERCENT | SCRIPT_ESCAPE);
    expect(step("\\n&sol;")!.digitFamilies).toBe(0);
  });
});

describe("SegmentCut.keepsBefore", () => {
  test("answers whether a tag character or dump line starts before the limit", () => {
    const text = `${"ÿ".repeat(40)}\n0000000 74 6f${"ÿ".repeat(40)}`;
    const cut = new SegmentCut(text, (code) => code === 0xff);
    expect(cut.keepsBefore(40)).toBe(false);
    expect(cut.keepsBefore(41)).toBe(true);
    // Nothing left once it is kept (a span added after it keeps it first).
    cut.add(60, 61);
    expect(cut.keepsBefore(Infinity)).toBe(false);
  });

  test("answers false for a text with none, and once the cut is whole", () => {
    const plain = new SegmentCut("ÿ".repeat(100), (code) => code === 0xff);
    expect(plain.keepsBefore(Infinity)).toBe(false);
    const whole = new SegmentCut(`ab\n0000000 74${"ÿ".repeat(4)}`, (code) => code === 0xff);
    whole.add(0, 2);
    expect(whole.whole).toBe(true);
    expect(whole.keepsBefore(Infinity)).toBe(false);
  });
});
