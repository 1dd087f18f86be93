/**
 * Reading a text's runs of spelled-out items (a number, an escape, a code point) as the
 * characters they stand for: one left-to-right pass, each item replaced by its character in a
 * view (../view-builder.ts), so a copy found in the view is cut out where its items were. The
 * notations (octal bytes, `U+` code points, Morse) are read by {@link notationViewInSlices}; the
 * lists view (./lists-view.ts) reads its runs with the same {@link RunReader}, counting a run in
 * each of its readings first and then reading the one it chose.
 *
 * Why one shared reader: each notation only says what an item is; where a run starts, what may
 * stand between two items and how many a run needs are the same for all, and keeping the pass
 * in one place keeps it linear and sliced (each position is looked at a bounded number of
 * times, whatever the body, `test/unit/codemode/redaction/spellings/notation-views.test.ts` counts them; a run of a
 * million items pauses inside, issue #40).
 */
import { PAUSE, runToEnd, SLICE_POSITIONS, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { sliceBudget, WindowedSearch, type SliceBudget } from "../windowed-search";
import { LIST_SEPARATORS, separatorAt } from "./list-separators";

/**
 * What a run is made of.
 * - `item`: the length of the item at a position (0: none), its code point in `code.value`;
 * - `minItems`: how many items a run needs before it is read (1: every item alone);
 * - `joined`: whether an item may follow the one ending at `end` with no separator (always,
 *   never, or as the text there says: `0x` bytes back to back).
 */
export interface RunItems {
  item: (text: string, at: number, code: ItemCode) => number;
  minItems: number;
  joined: boolean | ((text: string, end: number) => boolean);
  /** Separator characters beyond whitespace (one of them, with whitespace around it). */
  separators?: string;
  /** The separator's length at `at`, when it is more than ./list-separators.ts reads. */
  separatorAt?: (text: string, at: number) => number;
  /**
   * Charge the slice budget one per item rather than per position: the lists view's items are
   * a few characters each and its slices were always counted in items (a slice in positions
   * paused a run of `12 12 …` three times as often, +29% of its wall time in Node, each pause a
   * macrotask, and the forced collections of a large body are counted in pauses).
   */
  perItem?: boolean;
}

/**
 * Where an item reader puts what it read: the character (set on success, so no item allocates),
 * and bits an item may set about its shape (cleared before each item, the reader keeps what a
 * run's items set; ./list-items.ts says which).
 */
export interface ItemCode {
  value: number;
  flags: number;
}

/**
 * One notation's items, and where its runs may start.
 * - `lead`: a pattern that finds where an item may start (searched natively in windows,
 *   ../windowed-search.ts: it must begin with a literal or a small class, so the search is
 *   linear, and match at most that file's `OVERLAP` characters).
 */
export interface Notation extends RunItems {
  lead: RegExp;
  /**
   * Whether the text holds what every run of the notation has: a native search of a few fixed
   * characters over the whole text (no repetition, so it never backtracks: ../windowed-search.ts
   * says why that matters), so a body that cannot hold the notation is not searched in windows
   * at all and pays no pause for it (issue #40).
   */
  mayHold: (text: string) => boolean;
}

/** Positions looked at and items read by {@link notationView} since the isolate started (tests bound them). */
export const notationWork = { positions: 0, items: 0 };

/** Where a {@link RunReader} counts its work: positions looked at, items read. */
export interface RunWork {
  positions: number;
  items: number;
}

/**
 * The view with every run of the notation's items read as characters, or undefined when there
 * is none.
 * @param view - a text and its map to the original
 * @param notation - what an item is
 */
export function notationView(view: View, notation: Notation): View | undefined {
  return runToEnd(notationViewInSlices(view, notation));
}

/**
 * {@link notationView} as a sliced pass (../slices.ts): the lead is searched in windows and the
 * pass pauses every {@link SLICE_POSITIONS} positions, inside a run too (a run can be a million
 * items: `12 12 12 …` is one of octal numbers).
 * @param view - a text and its map to the original
 * @param notation - what an item is
 * @param budget - the slice budget of the pass it belongs to
 */
export function* notationViewInSlices(
  view: View,
  notation: Notation,
  budget: SliceBudget = sliceBudget(),
): Sliced<View | undefined> {
  const { text } = view;
  if (!notation.mayHold(text)) return undefined;
  const lead = new WindowedSearch(notation.lead, text, budget);
  let match = yield* lead.next();
  if (!match) return undefined;
  const builder = new ViewBuilder(text);
  const run = new RunReader(text, notation, builder);
  for (; match; match = yield* lead.next()) {
    run.start(match.index);
    // Read in turns of a plain function (a loop in a generator is slower, and most runs are
    // short), pausing between turns: one run can be a million items.
    while (run.read(budget)) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    // The run's items are read: the next search starts after them (a position is looked at by
    // one run only, so the pass is linear).
    lead.from = Math.max(run.end, match.index + 1);
  }
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()), changed: builder.map };
}

/**
 * One run of items at a time, read into the view being built (or only counted), in turns that
 * end when the run does or the slice budget is spent.
 */
export class RunReader {
  /** Where the run read last ends (its last item's end; its start when it has none). */
  end = 0;
  /** How many items the run read last has so far. */
  items = 0;
  private readonly separators: string;
  // What stands between two items, and when none is needed (from `runs`, fixed per reader).
  private readonly separatorOf: (text: string, at: number, separators: string) => number;
  private readonly joinedAlways: boolean;
  private readonly joinedBy: ((text: string, end: number) => boolean) | undefined;
  private readonly code: ItemCode = { value: 0, flags: 0 };
  // Whether the run's first replacement marks the view being built (it may be taken back).
  private marking = false;
  // The first items of a run, until it has minItems (then every item is replaced as the next
  // one is found: a run of a million escapes holds no array of a million entries).
  private readonly starts: Int32Array;
  private readonly codes: Int32Array;
  private at = 0;
  // The item read last, replaced once the next one's start (or the run's end) is known: an item
  // takes the separator after it when another item follows (`U+74 U+6F` reads `to`).
  private lastStart = 0;
  private lastCode = 0;
  private ok = false;
  // The run's items stop before this position (start()'s `stop`).
  private stop = Infinity;
  private runFlags = 0;
  /**
   * Where the run's last streak of items that set no shape bit starts, and how many it has (0:
   * the last item set one). The lists view reads hex from there when a decimal run it chose
   * ends where a hex run goes on (./lists-view.ts).
   */
  tailStart = 0;
  /** See {@link RunReader.tailStart}. */
  tailItems = 0;

  /**
   * @param text - the text read
   * @param runs - what its runs are made of
   * @param builder - the view its items are read into
   * @param work - where the positions looked at and the items read are counted (tests bound them)
   */
  constructor(
    private readonly text: string,
    private readonly runs: RunItems,
    private readonly builder: ViewBuilder,
    private readonly work: RunWork = notationWork,
  ) {
    this.separators = runs.separators ?? LIST_SEPARATORS;
    this.separatorOf = runs.separatorAt ?? separatorAt;
    this.joinedAlways = runs.joined === true;
    this.joinedBy = typeof runs.joined === "function" ? runs.joined : undefined;
    this.starts = new Int32Array(runs.minItems);
    this.codes = new Int32Array(runs.minItems);
  }

  /** The bits the run's items set (./list-items.ts): what they all were. */
  get flags(): number {
    return this.runFlags;
  }

  /**
   * Starts a run at `at`.
   * @param at - where its first item would start
   * @param replace - false to count its items only (a reading that may not be chosen)
   * @param mark - mark the view being built before the run's first replacement, so the run can
   *   be taken back (ViewBuilder.rollback) when another reading of it is chosen after all
   * @param stop - no item is read at or after this position
   */
  start(at: number, replace = true, mark = false, stop = Infinity): void {
    this.at = at;
    this.end = at;
    this.items = 0;
    this.runFlags = 0;
    this.tailStart = at;
    this.tailItems = 0;
    this.stop = stop;
    this.ok = replace && at >= this.builder.consumed;
    this.marking = mark;
  }

  /**
   * Reads the run's items until it ends (false) or the budget is spent (true: call again after
   * a pause).
   */
  read(budget: SliceBudget): boolean {
    const { text, builder, code, starts, codes, ok } = this;
    // Read once per turn, not per item (a reader's RunItems are one of many shapes), and the
    // work counted in locals: this loop runs once per item of every run (a body of small
    // numbers is a million items, read four times over by the lists view).
    const { item, minItems, perItem } = this.runs;
    const { separatorOf, joinedAlways, joinedBy, stop } = this;
    let { at, items: count, end, lastStart, lastCode, runFlags, tailStart, tailItems } = this;
    let [positions, items, left] = [0, 0, budget.left];
    let more = false;
    for (;;) {
      if (at >= stop) break;
      code.flags = 0;
      const length = item(text, at, code);
      positions += length > 0 ? length : 1;
      left -= perItem ? 1 : length > 0 ? length : 1;
      if (length === 0) break;
      items++;
      // Shape bits per item: the streak of items that set none starts after the last that did.
      if (code.flags !== 0) {
        runFlags |= code.flags;
        tailItems = 0;
      } else if (tailItems++ === 0) tailStart = at;
      if (count < minItems) {
        starts[count] = at;
        codes[count] = code.value;
      } else if (ok) builder.replaceCode(lastStart, at - lastStart, lastCode);
      count++;
      if (count === minItems && ok && this.marking) builder.mark(starts[0]!);
      if (count === minItems && ok)
        for (let k = 0; k + 1 < minItems; k++)
          builder.replaceCode(starts[k]!, starts[k + 1]! - starts[k]!, codes[k]!);
      lastStart = at;
      lastCode = code.value;
      end = at + length;
      const sep = separatorOf(text, end, this.separators);
      positions += sep;
      if (!perItem) left -= sep;
      if (sep === 0 && !joinedAlways && !(joinedBy !== undefined && joinedBy(text, end))) break;
      at = end + sep;
      if (left <= 0) {
        more = true;
        break;
      }
    }
    budget.left = left;
    this.work.positions += positions;
    this.work.items += items;
    this.at = at;
    this.items = count;
    this.end = end;
    this.lastStart = lastStart;
    this.lastCode = lastCode;
    this.runFlags = runFlags;
    this.tailStart = tailStart;
    this.tailItems = tailItems;
    if (!more && count >= minItems && ok) builder.replaceCode(lastStart, end - lastStart, lastCode);
    return more;
  }
}
