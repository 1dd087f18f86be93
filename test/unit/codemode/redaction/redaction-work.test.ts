// The host's redaction work is linear in the body, whatever the body is (issue #40): counted in
// positions tried, not timed (the time target, ≤ 100 ms per MB, is in bench/redaction.mjs --heavy).
import { describe, expect, it } from "vitest";
import { decodeWork } from "../../../../src/codemode/redaction/decoding/decode-step";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";

const secrets = Object.freeze(["Bearer tok_Live.9f8e/7d6c-5b4a", "tok_Live.9f8e/7d6c-5b4a"]);

/** Positions the decoding steps tried for one text, per character of it. */
function workPerCharacter(text: string): number {
  const before = decodeWork.positions;
  secretRedactor(secrets).cleanText(text);
  return (decodeWork.positions - before) / text.length;
}

describe("decoding work per character", () => {
  // A program chooses what an echoing API returns: bodies made of nothing but sequences.
  it.each(["%25", "%2525", "%252541", "a%25b%2541&#37;\\x25=25 ", "\\\\\\\\"])(
    "is bounded and does not grow with the body for %s repeated",
    (unit) => {
      const small = workPerCharacter(unit.repeat(Math.ceil(20_000 / unit.length)));
      const large = workPerCharacter(unit.repeat(Math.ceil(200_000 / unit.length)));
      // Each step tries each position of its view once, and views shrink as they decode: at most
      // 1.86 per character here. Before, a step over adjacent sequences tried each position up
      // to 19 times (7.7 per character for %25).
      expect(large).toBeLessThan(2.2);
      expect(large).toBeLessThan(small * 1.1 + 0.1);
    },
  );

  // Sequences written in ROT13 (`%6S` is `%6F`) make a ROT13 view that is decoded too: the text's
  // own steps plus the view's, 3.0 per character at most here.
  it.each(["%6S", "%25%6S", "\\k25", "%2R%6S"])(
    "stays bounded with ROT13 sequences: %s repeated",
    (unit) => {
      const small = workPerCharacter(unit.repeat(Math.ceil(20_000 / unit.length)));
      const large = workPerCharacter(unit.repeat(Math.ceil(200_000 / unit.length)));
      expect(large).toBeLessThan(3.3);
      expect(large).toBeLessThan(small * 1.1 + 0.1);
    },
  );

  // Steps that produce NULs add a NUL-free view and the steps left from it (UTF-16 under a
  // character encoding): 1.83 per character at most here, the same for every size.
  it.each(["%00a", "%2500", "a\\u0000", "%25%00%37%00", "&#0;1,", "%00%25"])(
    "stays bounded with sequences that decode to NULs: %s repeated",
    (unit) => {
      const small = workPerCharacter(unit.repeat(Math.ceil(20_000 / unit.length)));
      const large = workPerCharacter(unit.repeat(Math.ceil(200_000 / unit.length)));
      expect(large).toBeLessThan(2.2);
      expect(large).toBeLessThan(small * 1.1 + 0.1);
    },
  );
});
