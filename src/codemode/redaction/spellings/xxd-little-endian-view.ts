/**
 * `xxd -e`: a little-endian dump, four bytes a group, each group printed as one 32-bit number
 * (so its bytes appear in reverse), the last group right-aligned:
 *
 * ```
 * 00000010: 65726165 6f742072 694c5f6b 392e6576  earer tok_Live.9
 * 00000020: 2f653866 63366437 3462352d   0a0d61  f8e/7d6c-5b4a..
 * ```
 *
 * ./dump-views.ts reads `xxd`'s groups in the order printed, and its text-column reading takes
 * the last line's right-aligned group for text. {@link xxdLittleEndianViews} reads the hex area by
 * its fixed width: the groups' bytes in memory order, and the text columns joined, the lines
 * joined also when other lines stand between them.
 */
import { runToEnd, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { holds, sliceBudget, WindowedSearch, type SliceBudget } from "../windowed-search";
import { hasSecondLine } from "./dump-line";

/** One line: offset and `:`, the 35 columns of four groups, two spaces, the text column. */
const XXD_E_LINE = /^[0-9a-f]{8}: ([0-9a-f ]{35})  ([\x20-\x7e]{1,16})\r?$/im;
const XXD_E_START = /\n[0-9a-f]{8}: [0-9a-f ]{8} [0-9a-f ]{8}/i;
const XXD_E_FIRST = /^[0-9a-f]{8}: [0-9a-f ]{8} [0-9a-f ]{8}/i;

/** A group's bytes in memory order, or undefined when it is not one (odd digits, inner spaces). */
function groupBytes(group: string): number[] | undefined {
  const digits = group.trimStart();
  if (digits.length % 2 !== 0 || digits.includes(" ")) return undefined;
  const bytes: number[] = [];
  for (let k = digits.length - 2; k >= 0; k -= 2)
    bytes.push(Number.parseInt(digits.slice(k, k + 2), 16));
  return bytes;
}

/**
 * The views of `xxd -e` dumps of at least two lines: their bytes in memory order, and their
 * text columns joined (both undefined when there is none).
 * @param view - a text and its map to the original
 */
export function xxdLittleEndianViews(view: View): [View | undefined, View | undefined] {
  return [
    runToEnd(xxdLittleEndianViewInSlices(view, "bytes")),
    runToEnd(xxdLittleEndianViewInSlices(view, "columns")),
  ];
}

/**
 * One of the views of {@link xxdLittleEndianViews} as a sliced pass (../slices.ts): the lines
 * are searched in windows (../windowed-search.ts), and each view is made alone, so the two are
 * never held at once.
 * @param view - a text and its map to the original
 * @param reading - the dump's bytes, or its text columns
 * @param budget - the slice budget of the pass it belongs to
 */
export function* xxdLittleEndianViewInSlices(
  view: View,
  reading: "bytes" | "columns",
  budget: SliceBudget = sliceBudget(),
): Sliced<View | undefined> {
  const { text } = view;
  // Two lines at least: a text without a line break and an offset after it holds none.
  if (!hasSecondLine(text)) return undefined;
  if (!XXD_E_FIRST.test(text) && !(yield* holds(XXD_E_START, text, budget))) return undefined;
  const builder = new ViewBuilder(text);
  const [bytes, columns] = reading === "bytes" ? [builder, undefined] : [undefined, builder];
  let lines = 0;
  let lastLineEnd = 0;
  const search = new WindowedSearch(XXD_E_LINE, text, budget);
  for (let match = yield* search.next(); match; match = yield* search.next()) {
    search.from = Math.max(search.from, match.index + match[0].length);
    budget.left -= match[0].length;
    const area = match[1]!;
    const groups = [0, 9, 18, 27].map((k) => area.slice(k, k + 8));
    const read = groups.map(groupBytes);
    // The separators between groups must be spaces, and a group after an empty one is no line.
    if (read.some((g) => g === undefined) || [8, 17, 26].some((k) => area[k] !== " ")) continue;
    const areaStart = match.index + 10;
    const lineEnd = match.index + match[0].length;
    // Bytes: each group's bytes replace it, the offset (and whatever stood since the previous
    // line) goes with the first group, the text column goes.
    if (bytes) {
      let from = lines > 0 ? bytes.consumed : match.index;
      for (let g = 0; g < 4; g++) {
        const end = areaStart + 9 * g + 8;
        bytes.replace(from, end - from, String.fromCharCode(...read[g]!));
        from = end;
      }
      bytes.replace(from, lineEnd - from, "");
    }
    // Text columns: everything but the column goes.
    // The column starts after the offset (10), the hex area (35) and two spaces.
    const column = match.index + 47;
    const columnEnd = column + match[2]!.length;
    const since = lines > 0 ? lastLineEnd : match.index;
    columns?.replace(since, column - since, "");
    if (lineEnd > columnEnd) columns?.replace(columnEnd, lineEnd - columnEnd, "");
    lastLineEnd = lineEnd;
    lines++;
  }
  if (lines < 2) return undefined;
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()) };
}
