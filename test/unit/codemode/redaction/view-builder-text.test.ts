// A view's text (src/codemode/redaction/view-builder.ts) is exactly what was copied and what
// replaced each sequence, whichever way its buffer becomes a string: one byte per character,
// widened to code units inside a copy or a replacement, and code units read by the UTF-16 decoder
// (issue #40: half the time of joined `fromCharCode` chunks for a CJK text). That decoder drops a
// leading U+FEFF unless told not to and reads a lone surrogate as U+FFFD; neither may reach a view.
import { describe, expect, it } from "vitest";
import { ViewBuilder } from "../../../../src/codemode/redaction/view-builder";

/** A fixed generator (no test may depend on chance). */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
}

// ASCII, Latin-1, CJK, a byte order mark, U+FFFD, both halves of a surrogate pair alone and
// together, and the NUL.
const UNITS = ["a", "%", "é", "\xff", "東", "\ufeff", "\ufffd", "\ud83d", "\ude00", "😀", "\0"];

describe("a view's text", () => {
  it("is what was copied and replaced, for texts of every kind of character", () => {
    const pick = generator(43);
    for (let round = 0; round < 2000; round++) {
      let text = "";
      // Short texts and texts with long copied spans (kept as slices of the text).
      const length = pick(3) === 0 ? 200 + pick(400) : 1 + pick(40);
      for (let k = 0; k < length; k++) text += UNITS[pick(UNITS.length)];
      const builder = new ViewBuilder(text);
      let expected = "";
      let at = 0;
      while (at < text.length) {
        const skip = pick(4) === 0 ? pick(100) : pick(4);
        const start = Math.min(text.length, at + skip);
        if (start >= text.length) break;
        const inLength = 1 + pick(Math.min(4, text.length - start));
        const decoded = Array.from({ length: pick(3) }, () => UNITS[pick(UNITS.length)]).join("");
        if (pick(2) === 0 || decoded.length !== 1) builder.replace(start, inLength, decoded);
        else builder.replaceCode(start, inLength, decoded.charCodeAt(0));
        expected += text.slice(at, start) + decoded;
        at = start + inLength;
      }
      expected += text.slice(at);
      const made = builder.finish();
      if (made === undefined) expect(expected).toBe(text);
      else expect(made, JSON.stringify(text)).toBe(expected);
    }
  });

  it("keeps a byte order mark, U+FFFD and lone surrogates among CJK", () => {
    const text = `\ufeff東京\ud800都\ufffd${"中".repeat(100)}\udc00`;
    const builder = new ViewBuilder(text);
    builder.replace(1, 1, "\ufeff");
    builder.replace(3, 1, "\udfff");
    expect(builder.finish()).toBe(`\ufeff\ufeff京\udfff都\ufffd${"中".repeat(100)}\udc00`);
    const plain = new ViewBuilder("\ufeff東京都");
    plain.replace(1, 1, "東");
    expect(plain.finish()).toBe("\ufeff東京都");
  });
});
