// Lists of character codes in full-width digits (src/codemode/redaction/decoding/spelled-views.ts):
// they read as a list only once folded, and the compact view glued a letter before the list to
// its first number (`x １１６,…` became `x116,…`), so the list lost its first item and the
// credential got through, while `codes: １１６,…` and JSON were caught.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";

const secret = "tok_9f8e7d6c5b4a3z";
const fullWidth = (s: string) =>
  s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + d.charCodeAt(0) - 48));
const codes = (s: string) => [...s].map((c) => c.charCodeAt(0));

describe("full-width digit lists next to text (hostile)", () => {
  const redactor = secretRedactor([secret]);
  const forms: [string, string][] = [
    ["comma-joined after a letter", `x ${fullWidth(codes(secret).join(","))}`],
    ["space-joined after a letter", `x ${fullWidth(codes(secret).join(" "))}`],
    ["after a word and a tab", `codes\t${fullWidth(codes(secret).join(", "))} end`],
    ["joined by ideographic spaces", `x ${fullWidth(codes(secret).join("\u3000"))}`],
    ["full-width commas after a letter", `x ${fullWidth(codes(secret).join("\uff0c"))}`],
    // attack7: NFKC leaves the ideographic comma, so no list reader took it.
    ["ideographic commas after a letter", `x ${fullWidth(codes(secret).join("\u3001"))}`],
    // A text with an ASCII list too got no compact view of its own: the full-width one went unread.
    ["beside an ASCII list", `ids 1,2,3,4,5,6,7,8,9 codes: ${fullWidth(codes(secret).join(","))}`],
  ];
  it.each(forms)("cuts out a list %s", (_, text) => {
    const out = redactor.text(text);
    expect(out).toContain("[REDACTED]");
    // No run of the list's digits is left that reads as the credential.
    expect(out).not.toContain(fullWidth(String(codes(secret)[1])) + fullWidth(","));
    expect(out.startsWith(text.slice(0, 2))).toBe(true);
  });

  // ASCII digits between separators that fold: no full-width digit, so the folded view was never
  // read for lists and the credential got through as plain text.
  it.each([
    ["full-width commas", "\uff0c"],
    ["full-width colons", "\uff1a"],
    ["full-width slashes", "\uff0f"],
    ["ideographic spaces", "\u3000"],
    ["no-break spaces", "\u00a0"],
    ["ideographic commas", "\u3001"],
    ["half-width ideographic commas", "\uff64"],
    ["small ideographic commas", "\ufe51"],
  ])("cuts out ASCII char codes joined by %s", (_, separator) => {
    const text = `codes ${codes(secret).join(separator)} end`;
    expect(redactor.text(text)).toBe("codes [REDACTED] end");
  });

  it("still catches the forms that were caught, and leaves ordinary full-width text", () => {
    expect(redactor.text(`codes: ${fullWidth(codes(secret).join(","))}`)).toBe("codes: [REDACTED]");
    const plain = `x ${fullWidth("116,111,107")} and ｆｕｌｌ ｗｉｄｔｈ`;
    expect(redactor.text(plain)).toBe(plain);
    const listed = "见第1、2、3、4、5、6、7、8、9条";
    expect(redactor.text(listed)).toBe(listed);
  });
});

// Issue #40's CJK row makes the folded view of its text only because `ｆ` and `ｄ` (of `ｆｕｌｌ
// ｗｉｄｔｈ`) are full-width hex letters (spelled-views.ts's FOLDED_DIGITS gate). Tightening that
// gate (a hex letter counted only beside another hex digit) was reviewed and dropped: the folded
// view, once made, reads every list in the text that only folding makes one, and these three are
// read nowhere else. So a text holding a lone full-width hex letter catches them, and a cut of the
// gate must not lose that. (Without any gate character they go unread: bench/README.md.)
describe("lists only the folded view reads, in a text with a lone full-width hex letter (hostile)", () => {
  const redactor = secretRedactor([secret]);
  const superscript = (s: string) => s.replace(/[0-9]/g, (d) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[Number(d)]!);
  it.each([
    [
      "`0x` written with a full-width `ｘ`",
      codes(secret)
        .map((n) => `0ｘ${n.toString(16)}`)
        .join(","),
    ],
    ["char codes in superscript digits", superscript(codes(secret).join(","))],
    ["one-character strings in full-width quotes", [...secret].map((c) => `＂${c}＂`).join(",")],
  ])("cuts out %s", (_, list) => {
    const text = `{"説明":"ｆｕｌｌ ｗｉｄｔｈ","codes":"${list}"}`;
    expect(redactor.text(text)).toBe(`{"説明":"ｆｕｌｌ ｗｉｄｔｈ","codes":"[REDACTED]"}`);
  });
});

// The same lists with no full-width hex digit anywhere: nothing made the folded view, so they
// went through (found in the review above). A full-width `ｘ`, `＂` or `＇` now makes it too.
describe("lists spelled with a full-width `ｘ` or full-width quotes alone (hostile)", () => {
  const redactor = secretRedactor([secret]);
  it.each([
    [
      "`0ｘ` prefixes",
      codes(secret)
        .map((n) => `0ｘ${n.toString(16)}`)
        .join(","),
    ],
    [
      "`0Ｘ` prefixes",
      codes(secret)
        .map((n) => `0Ｘ${n.toString(16)}`)
        .join(" "),
    ],
    ["full-width double quotes", [...secret].map((c) => `＂${c}＂`).join(",")],
    ["full-width single quotes", [...secret].map((c) => `＇${c}＇`).join(",")],
  ])("cuts out a list with %s beside CJK", (_, list) => {
    expect(redactor.text(`説明 ${list} 東京`)).toBe("説明 [REDACTED] 東京");
  });

  it("leaves full-width text with those characters as it is", () => {
    const plain = "ｔｅｘｔ ＂ｑｕｏｔｅｄ＂ ＇ｗｏｒｄ＇ 東京 0ｘ";
    expect(redactor.text(plain)).toBe(plain);
  });
});
