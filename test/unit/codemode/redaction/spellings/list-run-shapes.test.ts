// The lists view reads a text token by token only when a native search finds a run's shape in
// it (src/codemode/redaction/spellings/lists-view.ts, `RUN_SHAPES`; issue #40: random bytes
// hold no list, and the token pass over each of their 4 MB views was ~14 % of such a body's
// redaction). The shapes must hold every run the pass would find: lists at the edges of each
// shape (one-character strings beyond ASCII with the longest separators the short shape covers
// (two separator characters), and one whitespace character more; escapes and surrogate pairs; bits and `0x` bytes) among
// random bytes are still read and cut out.
import { describe, expect, it } from "vitest";
import { latin1 } from "../../../../../src/codemode/redaction/byte-text";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { listsView, listWork } from "../../../../../src/codemode/redaction/spellings/lists-view";
import { noiseBytes } from "../../../../helpers/redaction/seeded-noise";

const secret = "tok_9f8e7d6c5b4a3z";

/** Random bytes (a fixed generator). */
const noise = noiseBytes;

const utf8 = (text: string) => new TextEncoder().encode(text);
const codes = (s: string, separator: string, radix = 10) =>
  [...s].map((c) => c.charCodeAt(0).toString(radix)).join(separator);
const fullWidth = (c: string) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00);
/** Mathematical bold small letters and digits (surrogate pairs; NFKC folds them to ASCII). */
const bold = (c: string) =>
  /[a-z]/.test(c)
    ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
    : /[0-9]/.test(c)
      ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
      : c;
/** An array of one-character strings, each character as `spell` writes it. */
const chars = (spell: (c: string, i: number) => string, separator: string) =>
  `[${[...secret].map((c, i) => `"${spell(c, i)}"`).join(separator)}]`;
/** A full-width character as a JSON escape, but the first (the token pass starts a run of
 * one-character strings only at a plain one). */
const escaped = (c: string, i: number) =>
  i === 0 ? fullWidth(c) : `\\u${fullWidth(c).charCodeAt(0).toString(16)}`;

describe("the lists view's run shapes (hostile)", () => {
  const redactor = secretRedactor([secret]);
  // Random bytes hold no whitespace run of 8 and no 15 list characters in a row (the shapes'
  // own text), so only the spelled list can make the token pass run.
  const [noiseBefore, noiseAfter] = [noise(40_000, 3), noise(40_000, 11)];
  const [before, after] = [latin1(noiseBefore), latin1(noiseAfter)];
  const spellings: [string, string][] = [
    ["char codes joined by commas", codes(secret, ",")],
    ["hex bytes joined by `- `", codes(secret, "- ", 16)],
    [
      "bits back to back",
      [...secret].map((c) => c.charCodeAt(0).toString(2).padStart(8, "0")).join(""),
    ],
    ["0x bytes back to back", [...secret].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join("")],
    ["full-width characters, commas", chars(fullWidth, ",")],
    ["full-width characters, 7 spaces around each comma", chars(fullWidth, "       ,       ")],
    // Two separator characters are read between items (`115,,107`), so the shape covers them:
    // it covered one, and such a list went unread (attack16).
    ["full-width characters, two commas", chars(fullWidth, ",,")],
    ["full-width characters, `; ;`", chars(fullWidth, "; ;")],
    [
      "full-width characters, 7 spaces around two commas",
      chars(fullWidth, "       ,       ,       "),
    ],
    // Quotes and whitespace alone are fewer than 15 list characters: the longest whitespace the
    // shape of one-character strings covers, and one more (the whitespace run's shape).
    ["full-width characters, 7 tabs between", chars(fullWidth, "\t".repeat(7))],
    ["full-width characters, 8 tabs between", chars(fullWidth, "\t".repeat(8))],
    ["escaped full-width characters, `; `", chars(escaped, "; ")],
    ["bold letters (surrogate pairs), `|`", chars(bold, "|")],
    ["bold letters in single quotes, `/`", chars(bold, "/").replaceAll('"', "'")],
  ];
  it.each(spellings)("reads and cuts %s among random bytes", (_, spelled) => {
    const body = `${before}${spelled}${after}`;
    const passes = listWork.regionPasses;
    expect(listsView({ text: body, origin: null }).view).toBeDefined();
    expect(listWork.regionPasses).toBeGreaterThan(passes);
    const text = redactor.text(body);
    expect(text).not.toContain(spelled);
    expect(text).toContain("[REDACTED]");
    // As bytes: the list written in UTF-8 between the random bytes.
    const bytes = new Uint8Array([...noiseBefore, ...utf8(spelled), ...noiseAfter]);
    const read = latin1(redactor.bytes(bytes)!);
    expect(read).not.toContain(latin1(utf8(spelled)));
    expect(read).toContain("[REDACTED]");
  });

  it("does not read random bytes token by token", () => {
    const passes = listWork.regionPasses;
    for (const seed of [3, 11, 17])
      expect(listsView({ text: latin1(noise(200_000, seed)), origin: null }).view).toBeUndefined();
    expect(listWork.regionPasses).toBe(passes);
  });
});
