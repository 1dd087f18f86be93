/**
 * Character dumps: `od -c` and `hexdump -c` print a text one character per four-column cell
 * (`   t`, `  \n` for an escape, ` 303` for a byte in octal) after each line's offset:
 *
 * ```
 * 0000020   e   a   r   e   r       t   o   k   _   L   i   v   e   .   9
 * 0000040   f   8   e   /   7   d   6   c   -   5   b   4   a  \r  \n
 * ```
 *
 * Compacted, the offsets stand between the lines' characters, so a copy broken across two
 * lines reads as two pieces. {@link charDumpView} reads the cells of every dump line as their
 * characters (bytes, one character each) and joins the lines, also when other lines stand
 * between them (a dump interleaved with a log's other lines).
 */
import { runToEnd, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { holds, sliceBudget, WindowedSearch, type SliceBudget } from "../windowed-search";
import { hasSecondLine } from "./dump-line";

/**
 * One dump line: an offset (7 octal or hex digits, 8 for some tools), then 1–16 cells of four
 * characters: a printable character right-aligned, a two-character escape, or an octal byte.
 */
const CHAR_DUMP_LINE =
  /^[0-9a-f]{7,8}((?: {3}[\x20-\x7e]| {2}\\[0abfnrtv]| [0-7]{3}| {2}\*\*){1,16}) {0,64}\r?$/m;
/** What a dump line starts with after a line break (a literal first: searched natively). */
const CHAR_DUMP_START = /\n[0-9a-f]{7,8} {1,3}\S {1,3}\S/;
const CHAR_DUMP_FIRST = /^[0-9a-f]{7,8} {1,3}\S {1,3}\S/;

const ESCAPE: Record<string, number> = { "0": 0, a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 };

/** A cell's byte (-1 for `**`, the continuation of a multi-byte character hexdump shows). */
function cellByte(cell: string): number {
  if (cell.charCodeAt(1) === 32 && cell.charCodeAt(2) === 32) return cell.charCodeAt(3);
  if (cell.charCodeAt(2) === 92) return ESCAPE[cell[3]!]!;
  if (cell[2] === "*") return -1;
  return Number.parseInt(cell.slice(1), 8) & 0xff;
}

/**
 * The view with the cells of `od -c` and `hexdump -c` lines read as characters and the lines
 * joined (what lies between two dump lines dropped), or undefined when there is no such dump of
 * at least two lines.
 * @param view - a text and its map to the original
 */
export function charDumpView(view: View): View | undefined {
  return runToEnd(charDumpViewInSlices(view));
}

/**
 * {@link charDumpView} as a sliced pass (../slices.ts): the lines are searched in windows
 * (../windowed-search.ts) and the pass pauses between them.
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function* charDumpViewInSlices(
  view: View,
  budget: SliceBudget = sliceBudget(),
): Sliced<View | undefined> {
  const { text } = view;
  // Two lines at least: a text without a line break and an offset after it holds none.
  if (!hasSecondLine(text)) return undefined;
  if (!CHAR_DUMP_FIRST.test(text) && !(yield* holds(CHAR_DUMP_START, text, budget)))
    return undefined;
  const builder = new ViewBuilder(text);
  let lines = 0;
  const search = new WindowedSearch(CHAR_DUMP_LINE, text, budget);
  for (let match = yield* search.next(); match; match = yield* search.next()) {
    const cells = match[1]!;
    const first = match.index + match[0].indexOf(cells);
    // The offset, and before it whatever stood since the previous dump line, go with the first
    // cell: consecutive or not, the lines' characters read as one text.
    let from = lines > 0 ? builder.consumed : match.index;
    for (let k = 0; k + 4 <= cells.length; k += 4) {
      const byte = cellByte(cells.slice(k, k + 4));
      const end = first + k + 4;
      if (byte < 0) builder.replace(from, end - from, "");
      else builder.replaceCode(from, end - from, byte);
      from = end;
    }
    const lineEnd = match.index + match[0].length;
    if (lineEnd > from) builder.replace(from, lineEnd - from, "");
    lines++;
    budget.left -= match[0].length;
    search.from = Math.max(search.from, lineEnd);
  }
  if (lines < 2) return undefined;
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()) };
}
