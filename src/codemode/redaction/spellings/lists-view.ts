/**
 * The lists view: runs of numbers or one-character strings read as the characters they stand
 * for. An API that echoes raw header bytes (a Node `Buffer` as JSON, a hex dump) or a debugging
 * page that lists character codes spells a credential out this way, and so can a program that
 * recovered one. The view is made like a decoding step (../view-builder.ts), so a secret found in
 * it is cut out of the original where its spelled-out form was, and the search then treats it
 * like any other view (../decoding/spelled-views.ts composes it with the decoding steps).
 *
 * A run is at least {@link MIN_ITEMS} items of one kind: decimal codes (`116,111,107`,
 * `116.111`, `116 111`, a JSON array, a Node Buffer's `data`), hex bytes with a separator
 * (`74 6f`, `74:6f`, `0x74,0x6f`, the hex columns of `hexdump -C`, whose offsets and text column
 * count as separators; `0x` bytes also back to back), binary (`01110100 01101111` or one run of
 * 8-bit bytes; 6 or 7 bits standing alone, as a code without its leading zeros; `0b`-prefixed, 1
 * to 8 bits), any of these inside quotes (`["116","111"]`), and JSON arrays of characters
 * (`["t","o"]`). A separator is whitespace around at most one of `, . : ; - | /`.
 *
 * Other dumps (`hexdump -C`'s text column, `xxd`, `od`) are read by ./dump-views.ts; notations
 * read item by item (octal, code points, Morse) by ./item-runs.ts. Ordinary text is left as it
 * was wherever no run exists; a view is made only when one does.
 */
import { PAUSE, runToEnd, SLICE_POSITIONS, type Pause, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { isListSeparator, separatorAt as listSeparatorAt } from "./list-separators";

/** The fewest items a run needs: a form of a secret is at least 8 characters. */
export const MIN_ITEMS = 8;

// Character classes of ASCII, as bits in a table (the lists pass looks at every character).
const DIGIT = 1;
const HEX = 2;
const WORD = 4;
const SPACE = 8;
const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const char = String.fromCharCode(c);
  CLASSES[c] =
    (/\d/.test(char) ? DIGIT : 0) |
    (/[\da-f]/i.test(char) ? HEX : 0) |
    (/[\da-z]/i.test(char) ? WORD : 0) |
    (c === 32 || (c >= 9 && c <= 13) ? SPACE : 0);
}
const is = (c: number, kind: number) => c < 128 && (CLASSES[c]! & kind) !== 0;
const isDigit = (c: number) => is(c, DIGIT);
const isHex = (c: number) => is(c, HEX);
const isWord = (c: number) => is(c, WORD);
const isSpace = (c: number) => is(c, SPACE);
const isBit = (c: number) => c === 48 || c === 49;
const isX = (c: number) => c === 120 || c === 88;
const isQuote = (c: number) => c === 34 || c === 39;

type Kind = "decimal" | "hex" | "binary" | "chars";
/** The readings of a run of numbers, in the order tried. */
const DECIMAL_FIRST: Kind[] = ["binary", "decimal", "hex"];
const HEX_FIRST: Kind[] = ["binary", "hex", "decimal"];
const QUOTED_DECIMAL_FIRST: Kind[] = ["chars", ...DECIMAL_FIRST];
const QUOTED_HEX_FIRST: Kind[] = ["chars", ...HEX_FIRST];

/** The code point of the item {@link itemAt} read last: set on success, so no item allocates. */
let itemCode = 0;

/** `count` digits of `radix` at `at` as a number (the caller checked they are digits). */
function valueAt(text: string, at: number, count: number, radix: number): number {
  let value = 0;
  for (let k = at; k < at + count; k++) {
    const c = text.charCodeAt(k) | 32;
    value = value * radix + (c <= 57 ? c - 48 : c - 87);
  }
  return value;
}

/** The length of the item of a run at `at` (0: none); the character it stands for goes to itemCode. */
function itemAt(text: string, at: number, kind: Kind): number {
  const c = text.charCodeAt(at);
  if (kind !== "chars" && isQuote(c)) {
    // A number in a string (`["116","111"]`, `['0x74']`): the same item between its quotes.
    const inner = itemAt(text, at + 1, kind);
    return inner > 0 && text.charCodeAt(at + 1 + inner) === c ? inner + 2 : 0;
  }
  if (kind === "chars") {
    if (!isQuote(c)) return 0;
    const inner = text.charCodeAt(at + 1);
    if (inner === 92) {
      const next = text.charCodeAt(at + 2);
      if (next === 117) {
        for (let k = at + 3; k < at + 7; k++) if (!isHex(text.charCodeAt(k))) return 0;
        if (text.charCodeAt(at + 7) !== c) return 0;
        itemCode = valueAt(text, at + 3, 4, 16);
        return 8;
      }
      if (Number.isNaN(next) || text.charCodeAt(at + 3) !== c) return 0;
      itemCode = next;
      return 4;
    }
    if (Number.isNaN(inner) || inner === c) return 0;
    const width = inner >= 0xd800 && inner <= 0xdbff ? 2 : 1;
    if (text.charCodeAt(at + 1 + width) !== c) return 0;
    itemCode = text.codePointAt(at + 1)!;
    return width + 2;
  }
  if (kind === "binary") {
    // `0b`-prefixed (Python's `bin()`, which drops leading zeros: 1 to 8 bits).
    if (c === 48 && (text.charCodeAt(at + 1) | 32) === 98) {
      let end = at + 2;
      while (end < at + 10 && isBit(text.charCodeAt(end))) end++;
      if (end === at + 2 || isWord(text.charCodeAt(end))) return 0;
      itemCode = valueAt(text, at + 2, end - at - 2, 2);
      return end - at;
    }
    let bits = 0;
    while (bits < 8 && isBit(text.charCodeAt(at + bits))) bits++;
    // Eight bits may be followed by more (one run of bits); six or seven (a code without its
    // leading zeros: `1110100`, digits and punctuation need six) by no letter or digit.
    const after = text.charCodeAt(at + bits);
    if (bits < 6 || (isWord(after) && (bits < 8 || !isBit(after)))) return 0;
    itemCode = valueAt(text, at, bits, 2);
    return bits;
  }
  if (kind === "hex") {
    const prefixed = c === 48 && isX(text.charCodeAt(at + 1));
    const start = prefixed ? at + 2 : at;
    let end = start;
    while (end < start + 2 && isHex(text.charCodeAt(end))) end++;
    // `0x74` may be followed at once by the next `0x` (`0x740x6f…`, bytes printed back to back).
    const next = text.charCodeAt(end);
    const chained = prefixed && end - start === 2 && next === 48 && isX(text.charCodeAt(end + 1));
    if (end === start || (!prefixed && end - start < 2) || (isWord(next) && !chained)) return 0;
    itemCode = valueAt(text, start, end - start, 16);
    return end - at;
  }
  let end = at;
  while (end < at + 8 && isDigit(text.charCodeAt(end))) end++;
  if (end === at || end - at > 7 || isWord(text.charCodeAt(end))) return 0;
  const code = valueAt(text, at, end - at, 10);
  if (code > 0x10ffff) return 0;
  itemCode = code;
  return end - at;
}

/** `hexdump -C`'s line end: its text column, the line break and the next line's offset. */
const DUMP_LINE_END = /^ *\|[\x20-\x7e]{1,16}\|\r?\n[0-9a-f]{8} +/;

/**
 * The separator's length at `at` (0 when there is none): a list separator (./list-separators.ts),
 * or between hex items, `hexdump -C`'s line end (its text column and the next line's offset).
 */
function separatorAt(text: string, at: number, kind: Kind): number {
  if (kind === "hex") {
    let end = at;
    while (isSpace(text.charCodeAt(end))) end++;
    if (text.charCodeAt(end) === 124) {
      const tail = DUMP_LINE_END.exec(text.slice(end, end + 64));
      if (tail) return end + tail[0].length - at;
    }
  }
  return listSeparatorAt(text, at);
}

/**
 * List items read since the isolate started (runs counted and read): a count that does not
 * depend on the machine, so a test can bound the items read between two pauses.
 */
export const listWork = { items: 0 };

/** Where the run {@link runAt} read last ends. */
let runEnd = 0;
/** Where {@link runAt} stopped at its limit, to go on from (-1: the run ended). */
let runNext = -1;

/**
 * How many items a run from `at` has, reading at most `limit` (its end goes to runEnd; where it
 * stopped at the limit, to runNext). A plain function, not a pass: it is tried at every
 * candidate start, most runs are short, and a generator per try cost ordinary bodies ~10%.
 */
function runAt(text: string, at: number, kind: Kind, limit = Number.POSITIVE_INFINITY): number {
  let items = 0;
  let i = at;
  runEnd = at;
  runNext = -1;
  for (let length = itemAt(text, i, kind); length > 0;) {
    items++;
    const next = i + length;
    runEnd = next;
    const sep = separatorAt(text, next, kind);
    // A run of bits needs no separator, nor do `0x` bytes; other numbers do (digits side by side
    // are one number).
    if (sep === 0 && !(kind === "binary" || (kind === "hex" && isX(text.charCodeAt(next + 1)))))
      break;
    i = next + sep;
    if (items >= limit) {
      runNext = i;
      break;
    }
    length = itemAt(text, i, kind);
  }
  listWork.items += items;
  return items;
}

/**
 * The rest of a run {@link runAt} stopped at its limit (from runNext), as a sliced pass: one run
 * can be a million numbers (`12 12 12 …`, 4 MB), read in one turn it held the thread ~1 s at load
 * (issue #40). Returns the items read; the run's end goes to runEnd on return.
 */
function* restOfRun(text: string, kind: Kind): Sliced<number> {
  let items = 0;
  while (runNext >= 0) {
    const [from, end] = [runNext, runEnd];
    yield PAUSE;
    items += runAt(text, from, kind, SLICE_POSITIONS);
    // Nothing more at `from`: the run ended with the item before it.
    if (runEnd === from) runEnd = end;
  }
  return items;
}

/** Characters that may stand between two items of a run (as {@link separatorAt} reads them). */
const isSeparator = (c: number) => isSpace(c) || isListSeparator(c);

/**
 * Where runs of items may be, as `[from, to)` ranges: a quick left-to-right pass over tokens
 * (no allocation per token) that finds streaks of at least {@link MIN_ITEMS} short hex-digit
 * tokens between separators, long runs of bits, and single-character strings. Only these get
 * the exact reading: trying it at every number of an ordinary JSON body cost more than
 * everything else redaction does.
 */
function* candidateRegions(text: string): Generator<[number, number] | Pause> {
  let [start, count, last] = [-1, 0, 0];
  const n = text.length;
  let i = 0;
  let budget = SLICE_POSITIONS;
  while (i < n) {
    // A token or a separator run per turn: at least a position each.
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    const c = text.charCodeAt(i);
    if (isWord(c) || c === 120 || c === 88) {
      const token = i;
      let hexOnly = true;
      let bits = true;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (!(isWord(d) || d === 95)) break;
        // `0x74` and `0b1110100` (Python's bin()) are items too.
        if (!isHex(d) && !((d === 120 || d === 88) && i === token + 1)) hexOnly = false;
        if (d !== 48 && d !== 49) bits = false;
        i++;
      }
      const length = i - token;
      if (
        (bits && length >= 8 * MIN_ITEMS) ||
        (length >= 4 * MIN_ITEMS && c === 48 && isX(text.charCodeAt(token + 1)))
      ) {
        // One run of bits, or `0x` bytes back to back (`0x740x6f…`, checked exactly later).
        if (count >= MIN_ITEMS) yield [start, last];
        yield [token, i];
        count = 0;
      } else if (hexOnly && length <= 10) {
        // A number in quotes: the region starts at its opening quote and ends after its closing one.
        const quoted = isQuote(text.charCodeAt(token - 1));
        if (count === 0) start = quoted ? token - 1 : token;
        count++;
        last = quoted && text.charCodeAt(i) === text.charCodeAt(token - 1) ? i + 1 : i;
      } else {
        if (count >= MIN_ITEMS) yield [start, last];
        count = 0;
      }
      continue;
    }
    if (isSeparator(c)) {
      const from = i;
      while (i < n && isSeparator(text.charCodeAt(i))) i++;
      if (i - from > 6 && text.charCodeAt(i) !== 124) {
        if (count >= MIN_ITEMS) yield [start, last];
        count = 0;
      }
      continue;
    }
    if (c === 124 && count > 0) {
      // hexdump -C: a line's text column, the line break and the next offset go on the run.
      const tail = DUMP_LINE_END.exec(text.slice(i, i + 64));
      if (tail) {
        i += tail[0].length;
        continue;
      }
    }
    if (
      (c === 34 || c === 39) &&
      text.charCodeAt(i + 2) === c &&
      isSeparator(text.charCodeAt(i + 3))
    ) {
      // A one-character string followed by a separator: maybe an array of characters.
      if (runAt(text, i, "chars") >= MIN_ITEMS) {
        if (count >= MIN_ITEMS) yield [start, last];
        count = 0;
        const end = runEnd;
        yield [i, end];
        i = end;
        continue;
      }
    }
    if (c === 34 || c === 39) {
      // Quotes count as separators: numbers in strings (`["116","111"]`) are items too.
      i++;
      continue;
    }
    if (count >= MIN_ITEMS) yield [start, last];
    count = 0;
    i++;
  }
  if (count >= MIN_ITEMS) yield [start, last];
}

/**
 * The view with every run of numbers or one-character strings read as its characters, or
 * undefined when there is none.
 * @param view - a text and its map to the original
 * @param hexFirst - read a run of two-digit numbers as hex (a second view reads them as decimal)
 * @param first - what the first (decimal-first) reading of the same text returned, for the second
 * @returns the view, whether a run could be read both ways, and what a second reading reuses
 */
export function listsView(view: View, hexFirst = false, first?: FirstReading): ListsReading {
  return runToEnd(listsViewInSlices(view, hexFirst, first));
}

/** What {@link listsView} answers. */
export type ListsReading = { view: View | undefined; ambiguous: boolean } & FirstReading;

/**
 * {@link listsView} as a sliced pass (../slices.ts): pauses every {@link SLICE_POSITIONS}
 * positions (4 MB of `12 12 12 …` is a million items, ~1 s of one pass on a loaded machine).
 * @param view - a text and its map to the original
 * @param hexFirst - as for {@link listsView}
 * @param first - as for {@link listsView}
 */
export function* listsViewInSlices(
  view: View,
  hexFirst = false,
  first?: FirstReading,
): Sliced<ListsReading> {
  const { text } = view;
  let budget = SLICE_POSITIONS;
  const builder = new ViewBuilder(text);
  let ambiguous = false;
  const regions = first?.regions;
  // Where this (decimal-first) reading found a run both ways: the hex-first reading reads hex
  // there, to the end recorded, without reading the run again.
  const hexRuns = first ? undefined : new Map<number, number>();
  // The regions as `from, to` pairs: a second reading of the same text reuses the first's.
  const found = regions ? [...regions] : [];
  if (!regions)
    for (const region of candidateRegions(text)) {
      if (region === PAUSE) yield region;
      else found.push(region[0], region[1]);
    }
  for (let r = 0; r < found.length; r += 2)
    for (let i = found[r]!, to = found[r + 1]!; i < to; i++) {
      // A turn reads a run (many positions) or skips one position: a position each at least.
      if (--budget <= 0) {
        budget = SLICE_POSITIONS;
        yield PAUSE;
      }
      const c = text.charCodeAt(i);
      const quote = c === 34 || c === 39;
      if (!isHex(c) && !quote) continue;
      if (i > 0 && isWord(text.charCodeAt(i - 1))) continue;
      if (i < builder.consumed) continue;
      const known = first?.hexRuns.get(i);
      if (known !== undefined) {
        i = (yield* readRun(text, builder, i, known, "hex")) - 1;
        continue;
      }
      let [best, bestEnd, hexEnd, decimalEnd, hexItems] = [-1, 0, 0, 0, 0];
      let furthest = i;
      const kinds = quote
        ? hexFirst
          ? QUOTED_HEX_FIRST
          : QUOTED_DECIMAL_FIRST
        : hexFirst
          ? HEX_FIRST
          : DECIMAL_FIRST;
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[k]!;
        // Most runs are short: read at once, and in slices only past a slice's worth.
        let items = runAt(text, i, kind, SLICE_POSITIONS);
        if (runNext >= 0) items += yield* restOfRun(text, kind);
        furthest = Math.max(furthest, runEnd);
        if (kind === "hex") [hexEnd, hexItems] = [runEnd, items];
        if (kind === "decimal") decimalEnd = runEnd;
        if (best < 0 && items >= MIN_ITEMS) [best, bestEnd] = [k, runEnd];
      }
      let kind = best < 0 ? undefined : kinds[best]!;
      // Hex digits among the numbers decide for hex; otherwise both readings are worth a view.
      if (kind === "decimal" && hexItems >= MIN_ITEMS) {
        if (hexEnd > decimalEnd) [kind, bestEnd] = ["hex", hexEnd];
        else {
          ambiguous = true;
          hexRuns?.set(i, hexEnd);
        }
      }
      if (kind === undefined) {
        i = Math.max(i, furthest - 1);
        continue;
      }
      i = (yield* readRun(text, builder, i, bestEnd, kind)) - 1;
    }
  const decoded = builder.finish();
  return {
    view:
      decoded === undefined
        ? undefined
        : {
            text: decoded,
            origin: compose(view.origin, builder.map.origin()),
            changed: builder.map,
          },
    ambiguous,
    regions: found,
    hexRuns: hexRuns ?? new Map(),
  };
}

/** What a second reading of the same text takes from the first: see {@link listsView}. */
export interface FirstReading {
  /** The candidate regions, as `from, to` pairs. */
  regions: number[];
  /** Starts of runs read both ways, and where their hex reading ends. */
  hexRuns: Map<number, number>;
}

/**
 * Replaces the items of a run (`[from, end)`, of one kind) by their characters; returns `end`.
 * A sliced pass, like {@link restOfRun}.
 */
function* readRun(
  text: string,
  builder: ViewBuilder,
  from: number,
  end: number,
  kind: Kind,
): Sliced<number> {
  let at = from;
  let budget = SLICE_POSITIONS;
  while (at < end) {
    const length = itemAt(text, at, kind);
    const next = at + length;
    const sep = next < end ? separatorAt(text, next, kind) : 0;
    builder.replaceCode(at, length + sep, itemCode);
    listWork.items++;
    at = next + sep;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return end;
}
