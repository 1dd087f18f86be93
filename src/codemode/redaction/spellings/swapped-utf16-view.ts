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
 * Such a character also counts as its UTF-8 read one character per byte (`ç\x90\x80` for U+7400):
 * what percent-decoding makes of `encodeURIComponent` over the swapped text (`%E7%90%80…`), as
 * the compact view reads percent-encoded full-width letters (./compact-view.ts).
 *
 * One pass, left to right, a sliced one (../slices.ts); a text with none of these characters
 * costs one native scan (most bodies are Latin-1 and V8 answers those at once).
 */
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { utf8At } from "./compact-view";

/** The fewest byte-swapped characters in a row read: a form of a secret is at least 8. */
const MIN_RUN = 8;

/** A character whose low byte is 0 and high byte is not: U+0100, U+0200, … U+FF00. */
const isSwapped = (c: number) => (c & 0xff) === 0 && c !== 0;

/**
 * Any of those characters (a class of 255 code units: one native scan, no backtracking), or
 * the start of one's UTF-8 read one character per byte (its last byte is always 0x80).
 */
const SWAPPED_UNIT = new RegExp(
  `[${Array.from({ length: 255 }, (_, k) => `\\u${((k + 1) << 8).toString(16).padStart(4, "0")}`).join("")}]|[\\xc4-\\xdf]\\x80|[\\xe0-\\xef][\\x80-\\xbf]\\x80`,
);

/** How many characters the last character {@link swappedAt} found spans (1, or its UTF-8 bytes). */
let unitLength = 1;

/**
 * The byte-swapped character at `at`, as itself or as its UTF-8 bytes (its length then in
 * {@link unitLength}: no array per character of a long run), or 0 when there is none.
 */
function swappedAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  unitLength = 1;
  if (isSwapped(c)) return c;
  if (c < 0xc4 || c > 0xef) return 0;
  const read = utf8At(text, at);
  if (read === undefined || read[0] > 0xffff || !isSwapped(read[0])) return 0;
  unitLength = read[1];
  return read[0];
}

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
  // a long run is cut out alone, not with the whole run). Where the run's first characters
  // are, while it is shorter: a character may be several (its UTF-8 bytes).
  let run = 0;
  const starts = new Int32Array(MIN_RUN);
  const lengths = new Int32Array(MIN_RUN);
  const codes = new Int32Array(MIN_RUN);
  for (let i = first; i < text.length;) {
    const code = swappedAt(text, i);
    const length = unitLength;
    if (code === 0) run = 0;
    else if (++run > MIN_RUN) builder.replaceCode(i, length, code >> 8);
    else {
      starts[run - 1] = i;
      lengths[run - 1] = length;
      codes[run - 1] = code;
      if (run === MIN_RUN)
        for (let k = 0; k < MIN_RUN; k++)
          builder.replaceCode(starts[k]!, lengths[k]!, codes[k]! >> 8);
    }
    i += length;
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
