// Decoding steps beside folded characters (src/codemode/redaction/decoding/beside-folded-steps.ts):
// a compact view is decoded only where a sequence's start lies beside a character it folded to
// ASCII, so `ｔｏｋ\u005fＬｉｖｅ` reads `tok_Live` and ordinary text costs no step.
import { describe, expect, it } from "vitest";
import { stepsBesideFolded } from "../../../../../src/codemode/redaction/decoding/beside-folded-steps";
import { decodeWork } from "../../../../../src/codemode/redaction/decoding/decode-step";
import { PAUSE, runToEnd } from "../../../../../src/codemode/redaction/slices";
import { compactViewInSlices } from "../../../../../src/codemode/redaction/spellings/compact-view";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import type { View } from "../../../../../src/codemode/redaction/view-builder";

const fullWidth = (t: string) =>
  [...t].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("");

/** The views the steps make of a text's compact view. */
function steps(text: string): string[] {
  const compact = runToEnd(compactViewInSlices({ text, origin: null }));
  if (!compact) return [];
  return [...stepsBesideFolded(compact, 2)]
    .filter((view): view is View => view !== PAUSE)
    .map((view) => view.text);
}

describe("decoding steps beside folded characters", () => {
  it.each([
    ["a \\u escape", "\\u005f"],
    ["a \\x escape", "\\x5f"],
    ["a percent-encoding", "%5F"],
    ["an HTML reference", "&#95;"],
  ])("read a full-width copy with %s inside", (_name, escape) => {
    expect(steps(`id: ${fullWidth("tok")}${escape}${fullWidth("Live")} ok`)).toContain(
      "id:tok_Liveok",
    );
  });

  it("read a sequence before the first folded character, and two in a row", () => {
    expect(steps(`\\u0074${fullWidth("ok")}`)).toContain("tok");
    expect(steps(`${fullWidth("tok")}\\u005f\\u004c${fullWidth("ive")}`)).toContain("tok_Live");
  });

  it("make no step of text without a sequence beside a folded character", () => {
    expect(steps(`${fullWidth("token")} and "a\\nb" far away ${"x".repeat(40)} %41`)).toEqual([]);
    expect(steps(`東京 ${"\\n".repeat(10)} 中文`)).toEqual([]);
    expect(steps(`plain ASCII with \\u0041 and %41`)).toEqual([]);
  });

  it("try only the places beside folded characters, not the text", () => {
    const text = `${"%41 ".repeat(50_000)}${fullWidth("tok")}\\u005f${fullWidth("Live")}`;
    const before = decodeWork.positions;
    expect(steps(text)).toHaveLength(1);
    expect(decodeWork.positions - before).toBeLessThan(100);
  });

  // Latin-1's `ª º ¹ ² ³` fold to ASCII too; a copy spelled with some of them and an escape
  // elsewhere leaked whole before a decoded view holding one was compacted (../spelled-views.ts).
  it.each([
    ["º and ª, with %5F", "tºk%5FLive.9f8e/7d6c-5b4ª"],
    ["º, with \\u005f", "tºk\\u005fLive.9f8e/7d6c-5b4a"],
    ["ª far from %2F", "tok_Live.9f8e%2F7d6c-5b4ª"],
  ])("lets the redaction read a copy in Latin-1 folds: %s", (_name, spelled) => {
    const out = secretRedactor(Object.freeze(["tok_Live.9f8e/7d6c-5b4a"])).text(
      `before ${spelled} after`,
    );
    expect(out).toBe("before [REDACTED] after");
  });
});
