// Sliced redactions of different requests interleave in the host: at every pause of one, others
// run (issue #40's slices). A pass must keep nothing in module state across a pause, or another
// request's pass changes its answer: the run-decoded view's samples were such state once its
// seeking of a run's ends paused. Here every pause of one redaction runs whole redactions of
// other bodies, and its answer must be the one it gives alone.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const redactor = secretRedactor(Object.freeze([TOKEN]));
const other = secretRedactor(Object.freeze(["an-other-secret-42"]));
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const hex = (text: string) =>
  [...text].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
const percent = (text: string) => [...text].map((c) => `%${hex(c)}`).join("");

/** Text holding a copy in base64 of `%XX`, a multiple of 3 long (its base64 has no padding). */
const deep = `x ${btoa(percent(TOKEN))} y`;
const threeLayers = deep.padEnd(Math.ceil(deep.length / 3) * 3, " ");

/** Bodies that pause often, with copies in spellings several passes read. */
const bodies: Record<string, string> = {
  // Three layers (base64 of base64 of `%XX`): only the run-decoded view reads the outer one.
  "a base64 run of text with a deep copy, its ends far apart": `${btoa(threeLayers)}${"\n".repeat(200_000)}${btoa("b".repeat(30))}`,
  "a long base64 run of words with a copy": btoa(
    `${fill("lorem ipsum ", 200_000)}${TOKEN}${fill(" dolor", 100_000)}`,
  ),
  "escapes, lists and a copy as char codes": `${fill("%2541%25%41a%2525", 150_000)}[${[...TOKEN].map((c) => c.charCodeAt(0)).join(",")}]${fill("12 ", 100_000)}`,
  "words with a spaced copy": `${fill("abc ", 200_000)}${[...TOKEN].join(" ")}${fill(" de", 100_000)}`,
  "full-width letters and a full-width copy": `${fill("\uff41\uff42 ", 100_000)}${[...TOKEN].map((c) => String.fromCodePoint(c.charCodeAt(0) + 0xfee0)).join("")}`,
  "a hex run of text with a copy": hex(`${fill("text ", 60_000)}${TOKEN}`),
};
const others = [
  btoa(String.fromCharCode(...Array.from({ length: 90 }, (_, i) => 0x80 + i))),
  `${fill("%41", 3000)} ${fill("01100001 ", 500)} ${btoa(fill("zz ", 300))}`,
  `${fill("\uff41 ", 2000)}${hex("q".repeat(40))}`,
];

describe("sliced redactions interleaved at their pauses", () => {
  it.each(Object.entries(bodies))("answer as alone: %s", async (_, body) => {
    const alone = redactor.cleanText(body);
    let pauses = 0;
    const interleaved = await redactor.cleanTextInSlices(body, async () => {
      redactor.cleanText(others[pauses % others.length]!);
      // Last, a binary run: what a pass left behind is then no reading of text.
      for (const text of others.toReversed()) other.cleanText(text);
      pauses++;
    });
    expect(pauses).toBeGreaterThan(3);
    expect(interleaved === alone).toBe(true);
    expect(alone).not.toBe(body);
  });
});
