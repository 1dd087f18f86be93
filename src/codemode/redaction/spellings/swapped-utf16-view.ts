/**
 * The byte-swapped UTF-16 view: UTF-16BE bytes decoded as UTF-16LE (`new TextDecoder("utf-16le")`
 * over `00 74 00 6f …`, or a body whose declared charset has the wrong byte order) give one
 * character per character of the text, its code moved to the high byte: `t` is U+7400 (`琀`).
 * No decoding step or NUL-free view reads that (there is no NUL to drop, every unit is one
 * printable character), so this view reads such characters back: each one whose low byte is 0
 * becomes its high byte. Made like a decoding step (../view-builder.ts), so a copy found in it is
 * cut out of the original where its characters were.
 *
 * Only runs of at least {@link MIN_RUN} such characters are read: a form of a secret is at least
 * 8 characters, and a CJK text holds one now and then (U+4E00 is `一`), which alone is no copy.
 * One pass, left to right, a sliced one (../slices.ts); a text with none of these characters
 * costs one native scan (most bodies are Latin-1 and V8 answers those at once).
 */
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";

/** The fewest byte-swapped characters in a row read: a form of a secret is at least 8. */
const MIN_RUN = 8;

/** A character whose low byte is 0 and high byte is not: U+0100, U+0200, … U+FF00. */
const isSwapped = (c: number) => (c & 0xff) === 0 && c !== 0;

/** Any of those characters (a class of 255 code units: one native scan, no backtracking). */
const SWAPPED_UNIT = new RegExp(
  `[${Array.from({ length: 255 }, (_, k) => `\\u${((k + 1) << 8).toString(16).padStart(4, "0")}`).join("")}]`,
);

/**
 * Characters looked at since the isolate started: a count that does not depend on the machine,
 * so a test can bound the work per character and between two pauses.
 */
export const swappedWork = { positions: 0 };

/**
 * The view of a text with every run of at least {@link MIN_RUN} byte-swapped UTF-16 characters
 * read as the characters of their high bytes (`琀漀欀` → `tok`), or undefined when it has no such
 * run. A sliced pass: pauses every {@link SLICE_POSITIONS} characters.
 * @param view - a text and its map to the original
 */
export function* swappedUtf16ViewInSlices(view: View): Sliced<View | undefined> {
  const { text } = view;
  const first = text.search(SWAPPED_UNIT);
  if (first < 0) return undefined;
  const builder = new ViewBuilder(text);
  let budget = SLICE_POSITIONS;
  // Length of the run of byte-swapped characters ending at i. Once it reaches MIN_RUN, its
  // characters are read, and each one after them as it comes, one sequence each (a copy inside
  // a long run is cut out alone, not with the whole run).
  let run = 0;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isSwapped(c)) run = 0;
    else if (++run > MIN_RUN) builder.replaceCode(i, 1, c >> 8);
    else if (run === MIN_RUN)
      for (let k = i - MIN_RUN + 1; k <= i; k++) builder.replaceCode(k, 1, text.charCodeAt(k) >> 8);
    swappedWork.positions++;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  const unswapped = builder.finish();
  return unswapped === undefined
    ? undefined
    : {
        text: unswapped,
        origin: compose(view.origin, builder.map.origin()),
        changed: builder.map,
      };
}
