// Which classes a decoding step produced (spelled-views.ts's producedClasses) decides which
// spelled readings of its view are made. In a text with no whitespace and nothing beyond ASCII,
// compaction's class is produced nowhere, so the look ends at the first list part: it walked
// every sequence of a flood of escapes (14 % of the e2e body's redaction, issue #40). Counted
// in sequences looked at, never timed; the answers are the redactor's as before.
import { describe, expect, it } from "vitest";
import { producedWork } from "../../../../../src/codemode/redaction/decoding/spelled-views";
import { REDACTED, secretRedactor } from "../../../../../src/codemode/redaction/redaction";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const redactor = secretRedactor(Object.freeze([TOKEN]));
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const percent = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16)}`).join("");

describe("the classes a step produced", () => {
  it("are looked for in a few sequences of a flood of ASCII escapes", () => {
    const body = fill("%2541%25%41a%2525", 262_144);
    const before = producedWork.sequences;
    expect(redactor.cleanText(body)).toBe(body);
    // A step of this body is tens of thousands of sequences; every look ends within a few.
    expect(producedWork.sequences - before).toBeLessThan(1000);
  });

  it.each([
    ["spaces a step produced, a list beside", `${fill("%2541", 1000)} 1,2,3 %20${percent(TOKEN)}`],
    ["a copy whose letters a step spaced", `${fill("%41", 100)}${[...TOKEN].join("%20")}`],
    [
      "a copy as a list of codes in escapes",
      `${fill("%25", 100)}${[...TOKEN].map((c) => c.charCodeAt(0)).join("%2C")}`,
    ],
    [
      "a copy in full-width letters after escapes",
      `${fill("%2541", 100)}%20${[...TOKEN].map((c) => String.fromCodePoint(c.charCodeAt(0) + 0xfee0)).join("")}`,
    ],
  ])("still catch what compaction or a list reading reads: %s", (_, body) => {
    const clean = redactor.cleanText(body);
    expect(clean).toContain(REDACTED);
  });
});
