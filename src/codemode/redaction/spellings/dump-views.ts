/**
 * Readings of a dump, the way debugging endpoints print raw request bytes: `hexdump -C` (offset,
 * hex pairs, `|text|`), `xxd` (offset and `:`, groups of two bytes, the text after two spaces),
 * and `od -x`/`hexdump` (offset, 16-bit words in little-endian order), plain `od` (the same words
 * in octal), `od -b` and `od -t x1` (bytes in octal or hex). A dump breaks a credential across
 * lines, so no line alone holds it (and a log may put other lines between a dump's lines, so
 * every dump line of the text is joined, consecutive or not):
 *
 * - {@link dumpBytesView} reads the hex (or octal) columns of consecutive lines as one run of
 *   bytes (one character per byte), words in the order the tool printed them (`xxd`: as bytes
 *   read; `od`, `hexdump`: low byte first);
 * - {@link dumpTextView} joins the text columns of consecutive lines.
 *
 * `hexdump -C`'s hex columns are read by the lists view (./lists-view.ts), whose separators
 * take its text column and offsets. Both views are made like a decoding step (../view-builder.ts),
 * so a copy found in them is cut out of the original where its lines were.
 */
import { runToEnd, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { holds, sliceBudget, WindowedSearch, type SliceBudget } from "../windowed-search";
import { hasSecondLine } from "./dump-line";

/**
 * One `hexdump -C` line: offset, hex columns, text column. Searched in windows
 * (../windowed-search.ts), so every repetition is bounded: up to 4 spaces after the offset and
 * between columns (hexdump prints 1 or 2), up to 52 before the text column (a short last line's
 * padding is at most 49).
 */
const HEXDUMP_LINE =
  /^[0-9a-f]{8} {1,4}(?:[0-9a-f]{2} {1,4}){0,15}[0-9a-f]{2} {1,52}\|([\x20-\x7e]{1,16})\|\r?$/m;
/**
 * One `xxd` line: offset and `:`, up to 16 groups of hex digits, 2 to 64 spaces (a short last
 * line's padding), the text column (bounded: ../windowed-search.ts). The text column is not
 * required to reach the end of the line: the dump's last line is followed by whatever the body
 * holds next (in a JSON string, `é"` or `","name":"José"}`), and a non-ASCII character there
 * left that line, and the credential's end on it, unread. The column holds one character per
 * byte of the line's hex groups; {@link dumpTextViewInSlices} cuts it to that length. Upper case
 * too: `xxd -u` prints offset and groups so, and such a dump leaked (attack8).
 */
const XXD_LINE =
  /^[0-9a-f]{7,8}: ((?:[0-9a-f]{2}){1,16}(?: (?:[0-9a-f]{2}){1,16}){0,15}) {2,64}([\x20-\x7e]{1,32})/im;
/**
 * The longest {@link XXD_LINE}: offset and `: ` (10), 16 groups of 32 digits and the spaces
 * between (527), the padding (64), the text column (32). Longer than the windows' overlap
 * (../windowed-search.ts): a line of `xxd -c 128 -g 8` (400 characters) starting in a window's
 * last ~30 characters was seen cut off, and not read (attack16); its search is given this.
 */
const XXD_LINE_LONGEST = 10 + 16 * 32 + 15 + 64 + 32;
/**
 * One `od -x` or `hexdump` line (4 hex digits a word), plain `od` (6 octal digits a word), `od -b`
 * (3 octal digits a byte) or `od -t x1` (2 hex digits a byte).
 */
const OD_LINE =
  /^[0-9a-f]{7}((?: [0-9a-f]{4}){1,8}|(?: [0-7]{6}){1,8}|(?: [0-7]{3}){1,16}|(?: [0-9a-f]{2}){1,16})\r?$/m;
/** What every dump line starts with: an offset, then hex or octal digits. */
const DUMP_START = /[0-9a-f]{7,8}:? {1,4}[0-9a-f]{2}/iy;
/** The same after a line break (a literal first character: the engine skips to each `\n`). */
const DUMP_LINE_START = /\n[0-9a-f]{7,8}:? {1,4}[0-9a-f]{2}/i;

/**
 * Whether some line of the text starts like a dump line, and it has two lines at least. A
 * multiline `^` tested every position of a one-line body (3% of an ordinary JSON body's
 * redaction), and trying each line start from JavaScript cost 150 ms for 4 MB of line breaks; a
 * pattern that begins with the line break is searched natively (in windows), skipping to each
 * one.
 */
function* hasDumpLine(text: string, budget: SliceBudget): Sliced<boolean> {
  if (!hasSecondLine(text)) return false;
  DUMP_START.lastIndex = 0;
  return DUMP_START.test(text) || (yield* holds(DUMP_LINE_START, text, budget));
}

/**
 * Reads every line of a pattern (in order, searched in windows) with `read`; returns how many
 * lines it read.
 */
function* eachLine(
  pattern: RegExp,
  text: string,
  budget: SliceBudget,
  read: (match: RegExpExecArray) => void,
): Sliced<number> {
  const search = new WindowedSearch(
    pattern,
    text,
    budget,
    pattern === XXD_LINE ? XXD_LINE_LONGEST : undefined,
  );
  let count = 0;
  for (let match = yield* search.next(); match; match = yield* search.next()) {
    search.from = Math.max(search.from, match.index + match[0].length);
    budget.left -= match[0].length;
    read(match);
    count++;
  }
  return count;
}

/**
 * The view with the hex (or octal) columns of `xxd`, `od -x`, `hexdump` and `od` dumps read as
 * bytes, the rest of their lines dropped, or undefined when there is no such dump of at least two
 * lines.
 * @param view - a text and its map to the original
 */
export function dumpBytesView(view: View): View | undefined {
  return runToEnd(dumpBytesViewInSlices(view));
}

/**
 * {@link dumpBytesView} as a sliced pass (../slices.ts).
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function* dumpBytesViewInSlices(
  view: View,
  budget: SliceBudget = sliceBudget(),
): Sliced<View | undefined> {
  const { text } = view;
  if (!(yield* hasDumpLine(text, budget))) return undefined;
  const builder = new ViewBuilder(text);
  let lines = 0;
  const read = (start: number, end: number, columns: string, at: number, littleEndian: boolean) => {
    // The offset, and before it whatever stood since the previous dump line (its line break, or
    // other lines a log put between the dump's lines), go with the first group.
    let from = lines > 0 ? builder.consumed : start;
    for (const group of columns.matchAll(/\S+/g)) {
      const groupEnd = at + group.index + group[0].length;
      builder.replace(from, groupEnd - from, groupBytes(group[0], littleEndian));
      from = groupEnd;
    }
    // The text column goes (dumpTextView reads it).
    if (end > from) builder.replace(from, end - from, "");
    lines++;
  };
  yield* eachLine(XXD_LINE, text, budget, (match) => {
    const at = match.index + match[0].indexOf(":") + 2;
    read(match.index, match.index + match[0].length, match[1]!, at, false);
  });
  if (lines === 0)
    yield* eachLine(OD_LINE, text, budget, (match) =>
      read(match.index, match.index + match[0].length, match[1]!, match.index + 7, true),
    );
  if (lines < 2) return undefined;
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()) };
}

/** A column group's bytes, one character each: hex pairs in order, 16-bit words, octal bytes. */
function groupBytes(group: string, littleEndian: boolean): string {
  if (group.length === 3) return String.fromCharCode(Number.parseInt(group, 8) & 0xff);
  if (group.length === 6) {
    // An octal word (plain `od`), low byte first.
    const word = Number.parseInt(group, 8);
    return String.fromCharCode(word & 0xff, word >> 8);
  }
  let out = "";
  for (let k = 0; k + 2 <= group.length; k += 2)
    out += String.fromCharCode(Number.parseInt(group.slice(k, k + 2), 16));
  return littleEndian ? [...out].toReversed().join("") : out;
}

/**
 * The view with the text columns of a `hexdump -C` or `xxd` dump joined (everything else on its
 * lines dropped), or undefined when there is no dump of at least two lines.
 * @param view - a text and its map to the original
 */
export function dumpTextView(view: View): View | undefined {
  return runToEnd(dumpTextViewInSlices(view));
}

/**
 * {@link dumpTextView} as a sliced pass (../slices.ts).
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function* dumpTextViewInSlices(
  view: View,
  budget: SliceBudget = sliceBudget(),
): Sliced<View | undefined> {
  const { text } = view;
  if (!(yield* hasDumpLine(text, budget))) return undefined;
  const builder = new ViewBuilder(text);
  let lines = 0;
  const join = (start: number, column: number, close: number, end: number) => {
    // What lies between the previous line's column and this one (its `|`, the line break, other
    // lines between the two, the offset and the hex columns) goes, so the columns read as one text.
    const from = lines > 0 ? builder.consumed : start;
    builder.replace(from, column - from, "");
    builder.replace(close, end - close, "");
    lines++;
  };
  yield* eachLine(HEXDUMP_LINE, text, budget, (match) => {
    const column = match.index + match[0].indexOf("|") + 1;
    join(match.index, column, column + match[1]!.length, match.index + match[0].length);
  });
  if (lines === 0)
    yield* eachLine(XXD_LINE, text, budget, (match) => {
      const end = match.index + match[0].length;
      // One character per byte: what follows the column on the line (a JSON string's end, the
      // next field) is no part of it.
      const bytes = match[1]!.replaceAll(" ", "").length / 2;
      const column = end - match[2]!.length;
      join(match.index, column, column + match[2]!.slice(0, bytes).trimEnd().length, end);
    });
  if (lines < 2) return undefined;
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()) };
}
