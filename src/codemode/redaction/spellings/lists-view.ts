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
 * (`["t","o"]`). A separator is whitespace around at most two of `, . : ; - | /`
 * (./list-separators.ts).
 *
 * What an item of each kind is lives in ./list-items.ts; runs are read with ./item-runs.ts's
 * reader, in turns (a run can be a million items). Other dumps (`hexdump -C`'s text column,
 * `xxd`, `od`) are read by ./dump-views.ts; notations read item by item (octal, code points,
 * Morse) by ./item-runs.ts. Ordinary text is left as it was wherever no run exists; a view is
 * made only when one does.
 */
import { PAUSE, runToEnd, SLICE_POSITIONS, type Pause, type Sliced } from "../slices";
import { keepShape } from "../kept-shapes";
import { compose, ViewBuilder, type View } from "../view-builder";
import { sliceBudget, type SliceBudget } from "../windowed-search";
import { RunReader } from "./item-runs";
import {
  DUMP_LINE_END,
  isHex,
  isQuote,
  isWord,
  isX,
  MIN_ITEMS,
  NOT_TWO_DIGITS,
  RUN_ITEMS,
  type Kind,
} from "./list-items";
import { separatorAt } from "./list-separators";
import { isSeparator, mayHoldRun } from "./run-shapes";

/**
 * List items read since the isolate started (runs counted and read), the positions looked at,
 * and the passes over a text's tokens for candidate regions (a text that holds no run shape gets
 * none): counts that do not depend on the machine, so a test can bound the items read between
 * two pauses and see which texts were read token by token.
 */
export const listWork = { items: 0, positions: 0, regionPasses: 0, regionPositions: 0 };

/** A reader per kind, for one text and the view being built from it. */
type Readers = Record<Kind, RunReader>;

const readersFor = (text: string, builder: ViewBuilder): Readers => ({
  decimal: new RunReader(text, RUN_ITEMS.decimal, builder, listWork),
  hex: new RunReader(text, RUN_ITEMS.hex, builder, listWork),
  binary: new RunReader(text, RUN_ITEMS.binary, builder, listWork),
  chars: new RunReader(text, RUN_ITEMS.chars, builder, listWork),
});

/**
 * Where runs of items may be, as `[from, to)` ranges: a quick left-to-right pass over tokens
 * (no allocation per token) that finds streaks of at least {@link MIN_ITEMS} short hex-digit
 * tokens between separators, long runs of bits, and single-character strings. Only these get
 * the exact reading: trying it at every number of an ordinary JSON body cost more than
 * everything else redaction does.
 */
function* candidateRegions(text: string, chars: RunReader): Generator<[number, number] | Pause> {
  listWork.regionPasses++;
  let [start, count, last] = [-1, 0, 0];
  const n = text.length;
  let i = 0;
  const budget = sliceBudget();
  while (i < n) {
    // A turn costs a position, and the positions of its token or separator run as they are read.
    if (--budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    const c = text.charCodeAt(i);
    if (isWord(c) || c === 120 || c === 88) {
      const token = i;
      let hexOnly = true;
      let bits = true;
      // A position each, with a pause inside a token too: a body can be one word (4 MB of
      // base64 with no line break was scanned between two pauses).
      for (;;) {
        const [from, stop] = [i, Math.min(n, i + Math.max(1, budget.left))];
        while (i < stop) {
          const d = text.charCodeAt(i);
          if (!(isWord(d) || d === 95)) break;
          // `0x74` and `0b1110100` (Python's bin()) are items too.
          if (!isHex(d) && !((d === 120 || d === 88) && i === token + 1)) hexOnly = false;
          if (d !== 48 && d !== 49) bits = false;
          i++;
        }
        budget.left -= i - from;
        listWork.regionPositions += i - from;
        if (i < stop || i >= n) break;
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
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
      // A separator run the exact reading does not take (three joiners) only makes a region
      // larger than its runs. Runs of 7 or more are not read (docs/security.md says so).
      const from = i;
      for (;;) {
        const [at, stop] = [i, Math.min(n, i + Math.max(1, budget.left))];
        while (i < stop && isSeparator(text.charCodeAt(i))) i++;
        budget.left -= i - at;
        listWork.regionPositions += i - at;
        if (i < stop || i >= n) break;
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
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
      // A one-character string followed by a separator: maybe an array of characters (a
      // million of them is one run: counted in turns).
      chars.start(i, false);
      while (chars.read(budget)) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
      if (chars.items >= MIN_ITEMS) {
        if (count >= MIN_ITEMS) yield [start, last];
        count = 0;
        const end = chars.end;
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
  const budget = sliceBudget();
  const builder = new ViewBuilder(text);
  const readers = readersFor(text, builder);
  let ambiguous = false;
  const regions = first?.regions;
  // Where this (decimal-first) reading found a run both ways: the hex-first reading reads hex
  // there without trying the other readings again.
  const hexRuns = first ? undefined : new Set<number>();
  // Where this reading chose a decimal run whose last items begin a longer hex run: the second
  // reading ends the decimal run there (see tailOfHex).
  const tailSplits = first ? undefined : new Map<number, number>();
  const bars = new Bars(text);
  // The regions as `from, to` pairs: a second reading of the same text reuses the first's.
  const found = regions ? [...regions] : [];
  if (!regions && (yield* mayHoldRun(text, budget)))
    for (const region of candidateRegions(text, readers.chars)) {
      if (region === PAUSE) yield region;
      else found.push(region[0], region[1]);
    }
  for (let r = 0; r < found.length; r += 2)
    for (let i = found[r]!, to = found[r + 1]!; i < to; i++) {
      // A turn reads a run (many positions) or skips one position: a position each at least.
      if (--budget.left <= 0) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
      const c = text.charCodeAt(i);
      const quote = c === 34 || c === 39;
      if (!isHex(c) && !quote) continue;
      if (i > 0 && isWord(text.charCodeAt(i - 1))) continue;
      if (i < builder.consumed) continue;
      const { chars, binary, decimal, hex } = readers;
      if (first?.hexRuns.has(i)) {
        // The first reading counted at least MIN_ITEMS hex items here: so does this one.
        hex.start(i);
        while (hex.read(budget)) {
          budget.left = SLICE_POSITIONS;
          yield PAUSE;
        }
        if (hex.items >= MIN_ITEMS) {
          i = hex.end - 1;
          continue;
        }
      }
      // Each reading in its order (a string of one character at a quote, bits, then decimal
      // before hex or hex before decimal) read straight into the view: a reader replaces a run's
      // items only once it has MIN_ITEMS of them, so a reading too short to be chosen leaves the
      // view as it was, and the first long enough is the one chosen, as when each was counted
      // first and the chosen one read after. Read in turns of a plain function (a generator per
      // try cost ordinary bodies ~10%), pausing between them: one run can be a million numbers
      // (`12 12 12 …`, 4 MB; in one turn it held the thread ~1 s at load, issue #40).
      let furthest = i;
      let end = -1;
      for (let k = quote ? 0 : 1; k < 2 && end < 0; k++) {
        const reader = k === 0 ? chars : binary;
        reader.start(i);
        while (reader.read(budget)) {
          budget.left = SLICE_POSITIONS;
          yield PAUSE;
        }
        end = chosenEnd(reader);
        furthest = Math.max(furthest, reader.end);
      }
      if (end < 0) {
        // Decimal first is marked: it is taken back when hex proves longer (below).
        const [lead, other] = hexFirst ? [hex, decimal] : [decimal, hex];
        lead.start(i, true, !hexFirst);
        while (lead.read(budget)) {
          budget.left = SLICE_POSITIONS;
          yield PAUSE;
        }
        end = chosenEnd(lead);
        furthest = Math.max(furthest, lead.end);
        if (end < 0) {
          // Too short (nothing was replaced): the other reading, when it is long enough. In the
          // second reading, a decimal run the first found the head of a hex run in ends before
          // it, and hex is read from there on (see tailOfHex).
          const split = first?.tailSplits.get(i);
          other.start(i, true, false, split);
          while (other.read(budget)) {
            budget.left = SLICE_POSITIONS;
            yield PAUSE;
          }
          if (split !== undefined) {
            i = split - 1;
            continue;
          }
          end = chosenEnd(other);
          furthest = Math.max(furthest, other.end);
        } else if (!hexFirst) {
          // Decimal was read: hex digits among the numbers decide for hex when hex reads
          // further (`12 34 … 6f`); otherwise both readings are worth a view (`12 12 …`).
          let [hexItems, hexEnd] = [decimal.items, end];
          const from = hexCountFrom(text, i, decimal, bars);
          if (from >= 0) {
            hex.start(from, false);
            while (hex.read(budget)) {
              budget.left = SLICE_POSITIONS;
              yield PAUSE;
            }
            if (from === i) [hexItems, hexEnd] = [hex.items, hex.end];
            else if (hex.items > 0) [hexItems, hexEnd] = [hexItems + hex.items, hex.end];
          }
          if (hexItems >= MIN_ITEMS && hexEnd > end) {
            builder.rollback();
            hex.start(i);
            while (hex.read(budget)) {
              budget.left = SLICE_POSITIONS;
              yield PAUSE;
            }
            end = chosenEnd(hex);
          } else if (hexItems >= MIN_ITEMS) {
            ambiguous = true;
            hexRuns?.add(i);
          }
          if (from === i && hexEnd <= end && tailSplits) {
            const tail = yield* tailOfHex(text, i, decimal, hex, bars, budget);
            if (tail >= 0) {
              ambiguous = true;
              tailSplits?.set(i, tail);
            }
          }
        }
      }
      if (end < 0) {
        // No reading is long enough: go on after what they read, but from the decimal reading's
        // last streak of two-digit items when it has one (`1 1 74 6f 6b …`: a hex run starts
        // inside the decimal one, which fails at `6f`; skipping past `74` lost its first byte,
        // found by the differential fuzz against main once doubled separators joined more
        // numbers). A reading from the streak has no earlier streak, so it goes on after what it
        // reads: each position is read at most twice more.
        const { tailStart, tailItems } = readers.decimal;
        const restart =
          tailItems > 0 && tailStart > i && tailStart < furthest ? tailStart : furthest;
        i = Math.max(i, restart - 1);
        continue;
      }
      i = end - 1;
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
    hexRuns: hexRuns ?? new Set(),
    tailSplits: tailSplits ?? new Map(),
  };
}

/** What a second reading of the same text takes from the first: see {@link listsView}. */
export interface FirstReading {
  /** The candidate regions, as `from, to` pairs. */
  regions: number[];
  /** Starts of runs read both ways (the second reading reads hex there). */
  hexRuns: Set<number>;
  /** Starts of decimal runs whose tail begins a hex run, and where that tail starts. */
  tailSplits: Map<number, number>;
}

/**
 * Where the last items of a decimal run just chosen begin a hex run of at least {@link MIN_ITEMS}
 * items (-1: they do not), which the second reading reads as hex. `1 1 1 74 6f 6b …` (hex bytes
 * of a secret after small numbers) was read as one decimal run through `74`, and the hex run
 * after it lacked its first byte: a copy main misses too, and doubled separators join more
 * numbers to a hex run this way (`12,,70 61 …`; the differential fuzz against main found it).
 * Hex from the run's last streak of items that set no shape bit (two digits:
 * ./list-items.ts's `NOT_TWO_DIGITS`) reads the same items up to the decimal run's end and
 * the same separator after it when no `|` stands there (the argument of hexCountFrom below), so
 * it is long enough when the streak and what hex counts on after it make {@link MIN_ITEMS}. A
 * streak read as hex only to the decimal run's end counts too: `2026-12-06 70 61 79 …` (bytes
 * of all-digit hex after a date) is decimal throughout, and was read one way only. The first
 * reading keeps its decimal run (a secret spelled in decimal codes whose last codes are two
 * digits stays whole there), and the second splits the run there (`tailSplits`): each view
 * reads one of the two.
 * Counting after the run is charged to the slice budget like any reading.
 */
function* tailOfHex(
  text: string,
  i: number,
  decimal: RunReader,
  hex: RunReader,
  bars: Bars,
  budget: SliceBudget,
): Sliced<number> {
  const { end, tailStart, tailItems } = decimal;
  // A streak from the run's start is the run itself (hexCountFrom's case): never split there.
  if (tailItems === 0 || tailStart <= i) return -1;
  const separator = separatorAt(text, end);
  if (bars.within(tailStart, end + separator)) {
    // A `|` (hex reads `hexdump -C`'s line end there): hex is counted from the streak itself.
    hex.start(tailStart, false);
    while (hex.read(budget)) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    return hex.items >= MIN_ITEMS ? tailStart : -1;
  }
  let after = 0;
  if (separator > 0) {
    hex.start(end + separator, false);
    while (hex.read(budget)) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    after = hex.items;
  }
  return tailItems + after >= MIN_ITEMS ? tailStart : -1;
}

/** Where the run its reader read last ends when it is long enough to be chosen, else -1. */
const chosenEnd = (reader: RunReader) => (reader.items >= MIN_ITEMS ? reader.end : -1);

/**
 * Where the hex reading of a run must be counted from, once the decimal reading at `i` read at
 * least {@link MIN_ITEMS} items (it is chosen unless hex reads further): `i`, or, when hex is
 * known to read the same items up to where the decimal run ends, where hex reads on from there
 * (after the separator; at the end for `0x` glued to a quoted item), or -1 when hex ends there
 * too. Reading a run of small numbers twice made `12 12 12 …` (a million items in 4 MB,
 * ~100 ms of the host's thread per pass) cost three passes in this view (issue #40).
 *
 * Hex is known when every decimal item was two digits and none was joined to the next by an `x`
 * (no item set `NOT_TWO_DIGITS`: `12x34` is no hex run) and no `|` stands in the run or in the
 * separator after it:
 * - a decimal item of two digits (`12`, or quoted `"12"`) is followed by no letter or digit
 *   (then the quote): that is a hex item of the same length (./list-items.ts's `hexItem`: two
 *   hex digits and no letter or digit after them; quoted, the same item between the same quotes);
 * - the separators are the same: hex reads `hexdump -C`'s line end where a list separator
 *   (./list-separators.ts) reads a `|`, and otherwise the same whitespace around at most two
 *   separator characters, which decimal reads (./list-items.ts's `hexSeparatorAt`);
 * - so hex reads the same items up to the decimal run's last one, and after it the same
 *   separator: where decimal found no item after it, hex counts on from there. With no
 *   separator, hex still reads on where `0x` follows at once (bytes printed back to back): after
 *   a quoted item (`"59"0x70`; an item without quotes is followed by no letter or digit).
 * (Any other decimal run is one that hex cannot read as far: a number of one digit or of three
 * or more is no hex item, and hex is counted from `i`, as before.)
 */
function hexCountFrom(text: string, i: number, decimal: RunReader, bars: Bars): number {
  const { end } = decimal;
  const separator = separatorAt(text, end);
  if ((decimal.flags & NOT_TWO_DIGITS) !== 0 || bars.within(i, end + separator)) return i;
  if (separator > 0) return end + separator;
  // `0x` right after a quoted item (`"59"0x70`): hex reads it as the next item.
  return isX(text.charCodeAt(end + 1)) ? end : -1;
}

/**
 * Whether a span of the text holds a `|`, for spans that move left to right: the next `|` is
 * searched natively, and again only once a span starts past it (linear over the whole text).
 */
class Bars {
  private from = 0;
  // The next `|` at or after `from` (-1: none; -2: not searched yet).
  private next = -2;

  /** @param text - the text the spans are of */
  constructor(private readonly text: string) {}

  /** Whether `[from, to)` holds a `|`. */
  within(from: number, to: number): boolean {
    if (this.next === -2 || from < this.from || (this.next >= 0 && this.next < from)) {
      this.from = from;
      this.next = this.text.indexOf("|", from);
    }
    return this.next >= 0 && this.next < to;
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
keepShape(new RunReader("", RUN_ITEMS.decimal, new ViewBuilder(""), listWork));
