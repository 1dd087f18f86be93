/**
 * The parts of a decoded view that its step changed, for the spelled-out readings made after it
 * (./decoded-views.ts): the readings of a decoded view differ from those of the view it was
 * decoded from only around what the step produced, and those were made and searched already (the
 * premise of ./spelled-views.ts: "read again only for what its step produced").
 *
 * Where a reading's reach ends: at an inert character ({@link inertCharacter}), one that no
 * reading reads, drops, folds or joins (every sequence, list, notation and dump is ASCII;
 * compaction leaves it as it is and it is no UTF-8 lead or continuation byte read one character
 * per byte) and that no form of a secret holds. Every reading passes it on unchanged, and no
 * form can match across it, so a find in a reading of the view lies between two inert
 * characters. The segments between them that hold no change read as they did in the view before,
 * whose readings were searched; only the changed segments (with the inert characters that bound
 * them) are kept. Two readings join what lies apart, across inert characters: the tag reading
 * and the dump readings (every dump line of a view, other lines between them): every tag
 * character and dump line is kept as if changed (`SegmentCut`).
 *
 * Why (issue #40): random bytes hold a few hundred chance sequences (`%e9`, `\101`, `=4A`) per
 * MB, so each decoding step of them changed a handful of places in a 4 MB view, and every
 * spelled reading (notations, lists, compaction, and the steps after each) was made again of the
 * whole view: ~160 views of 4 MB for one body, 3 s of CPU per MB. Text without inert characters
 * (ordinary JSON, ASCII) keeps its view whole: nothing changes for it.
 */
import { utf8LeadLength } from "../byte-text";
import { keepShape } from "../kept-shapes";
import { keptByCompaction } from "../spellings/compact-view";
import { PAUSE, SLICE_POSITIONS, sliceBudget, type SliceBudget, type Sliced } from "../slices";
import { SequenceMap, type Origin } from "../sequence-map";
import type { View } from "../view-builder";

/**
 * Whether a character is inert for every reading (see the file header), before the forms are
 * known: ASCII and the UTF-8 bytes compaction reads one character per byte (U+0080–U+00BF
 * continuations, U+00C2–U+00F4 leads) are read; a character compaction drops or folds is read; a
 * surrogate may be half of a tag character; a character whose low byte is 0 is what the
 * byte-swapped UTF-16 view reads.
 * @param code - a UTF-16 code unit
 */
export function inertCharacter(code: number): boolean {
  let state = INERT[code]!;
  if (state === 0) {
    const read =
      code < 0xc0 ||
      utf8LeadLength(code) > 0 ||
      (code >= 0xd800 && code <= 0xdfff) ||
      (code > 0xff && (code & 0xff) === 0) ||
      !keptByCompaction(code);
    state = read ? 2 : 1;
    INERT[code] = state;
  }
  return state === 1;
}

/** A tag character (U+E0020–U+E007E) as UTF-16 or as UTF-8 read one character per byte. */
const TAG_CHARACTER = /\udb40[\udc20-\udc7e]|\xf3\xa0[\x80\x81][\x80-\xbf]/;

/**
 * What every dump line starts with (../spellings/dump-views.ts, `char-dump-view.ts`,
 * `xxd-little-endian-view.ts`): a line start (after what ends a line for a multiline pattern),
 * an offset of seven or eight hex digits (either case: `xxd -u`), `:` after it or not, and a
 * space.
 */
const DUMP_LINE = /[\n\r\u2028\u2029][0-9a-fA-F]{7}[0-9a-fA-F]?:? /;
/** The same at the text's start. */
const FIRST_DUMP_LINE = /^[0-9a-fA-F]{7}[0-9a-fA-F]?:? /;

/** What {@link SegmentCut} keeps wherever it stands: tag characters and dump lines. */
const KEPT_ANYWHERE = new RegExp(`${TAG_CHARACTER.source}|${DUMP_LINE.source}`, "g");

/**
 * Views cut to their changed segments since the isolate started, and the characters of those
 * views and of what was kept: a test shows the cut is made (the time it saves is in
 * bench/redaction.mjs --heavy).
 */
export const segmentWork = { views: 0, viewed: 0, kept: 0 };

/** Per code unit: 0 not yet known, 1 inert, 2 read by some reading. */
const INERT = new Uint8Array(0x10000);

/** A character that may be inert: beyond ASCII, not a UTF-8 continuation byte. */
const MAYBE_INERT = /[\xc0-\uffff]/;

/**
 * Whether a text may hold an inert character (one native search): a text that holds none (ASCII,
 * ordinary JSON) cannot be cut, so a caller need not try.
 * @param text - the text
 */
export const mayHoldInert = (text: string): boolean => MAYBE_INERT.test(text);

/**
 * Views known to hold no character that may be inert (a step of such a view that produced none
 * either, ./decode-step.ts): the native search over a whole view per step was ~8 % of an
 * ordinary JSON body's redaction once every step asked it.
 */
export const plainViews = new WeakSet<View>();

/** A view shorter than this is read whole: cutting it saves less than the cut costs. */
export const MIN_CUT = 4_096;

/**
 * The view's changed segments (see the file header) as one view mapped to the original, or the
 * view itself when it was made by no step (and dropped nothing), holds no inert character, or its
 * changed segments are half of it or more (then cutting saves little).
 * @param view - a decoded view (its `changed` sequences are what its step produced) or a
 *   NUL-free one (its `dropped` sequences)
 * @param inert - whether a character is inert: {@link inertCharacter} and in no form of a secret
 */
export function* changedSegmentsInSlices(
  view: View,
  inert: (code: number) => boolean,
): Sliced<View> {
  const { text } = view;
  const changed = view.changed ?? view.dropped;
  if (!changed || changed.count === 0 || plainViews.has(view) || !MAYBE_INERT.test(text))
    return view;
  const cut = new SegmentCut(text, inert);
  const budget = sliceBudget();
  for (let t = 0; t < changed.count; t++) {
    if (--budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    const from = changed.outStart(t);
    if (cut.keepsBefore(from)) yield* cut.keepFarBefore(from, budget);
    if (!cut.whole) budget.left -= cut.add(from, from + changed.outLength(t));
    if (cut.whole) return view;
  }
  yield* cut.keepFarBefore(Infinity, budget);
  if (cut.whole) return view;
  const { starts, ends } = cut;
  // The segments' text, and the changes moved to where they are in it.
  const { text: kept, at } = cut.finish();
  segmentWork.views++;
  segmentWork.viewed += text.length;
  segmentWork.kept += kept.length;
  const moved = new SequenceMap();
  for (let t = 0, k = 0; t < changed.count; t++) {
    if (--budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    const from = changed.outStart(t);
    const length = changed.outLength(t);
    while (from >= ends[k]! && k + 1 < starts.length) k++;
    moved.add(from - starts[k]! + at[k]!, length, 1);
  }
  const local = cut.origin();
  const outer = view.origin;
  return {
    text: kept,
    origin: outer ? (i, end) => outer(local(i, end), end) : local,
    ...(view.changed ? { changed: moved } : { dropped: moved }),
    ...(view.digitFamilies === undefined ? {} : { digitFamilies: view.digitFamilies }),
  };
}

/**
 * Segments of a text being cut (see the file header): each span added is kept with the text up
 * to the nearest inert character on each side (and that character), spans whose segments touch
 * are joined. Used for what a decoding step changed (above) and for where a step will change a
 * view it reads whole (./decode-step.ts).
 */
export class SegmentCut {
  /** Where each segment starts in the text. */
  readonly starts: number[] = [];
  /** Where each segment ends (exclusive: past its closing inert character). */
  readonly ends: number[] = [];
  /** True once the segments cover half the text or more: cutting would save little. */
  whole = false;
  private covered = 0;
  private at: Int32Array | undefined;
  /** Finds the text's tag characters and dump lines, in order ({@link KEPT_ANYWHERE}). */
  private readonly tags = new RegExp(KEPT_ANYWHERE.source, "g");
  /**
   * Where the next tag character or dump line start not yet kept starts and ends (-1: not
   * looked for yet).
   */
  private nextTag = -1;
  private nextTagEnd = 0;

  /**
   * @param text - the text to cut
   * @param inert - whether a character is inert ({@link inertCharacter}, in no form)
   */
  constructor(
    private readonly text: string,
    private readonly inert: (code: number) => boolean,
  ) {}

  /**
   * Whether {@link SegmentCut.keepFarBefore} of `limit` has anything to keep: callers ask first,
   * and call it only then. A generator made per span added (every sequence a step decodes, every
   * run of NULs) was ~17 MB of young garbage per 4 MiB random body, for tags and dump lines
   * that random bytes almost never hold.
   * @param limit - as for {@link SegmentCut.keepFarBefore}
   */
  keepsBefore(limit: number): boolean {
    if (this.nextTag < 0) this.findTag();
    return this.nextTag < limit && !this.whole;
  }

  /**
   * Keeps the tag characters and dump lines that start before `limit` ({@link KEPT_ANYWHERE}),
   * in order, charging what it looks at to the budget and pausing when it runs out; stops once
   * the cut is {@link SegmentCut.whole}. A caller calls it before each span it adds and before
   * {@link SegmentCut.finish}: a body of dump line starts between inert characters
   * (`\n0000000ÿ` × 460,000) held the thread 170 ms in one call when they were kept there.
   * @param limit - keep those starting before this position
   * @param budget - the caller's slice budget
   */
  *keepFarBefore(limit: number, budget: SliceBudget): Sliced<void> {
    if (this.nextTag < 0) this.findTag();
    while (this.nextTag < limit && !this.whole) {
      budget.left -= this.keep(this.nextTag, this.nextTagEnd);
      this.findTag();
      if (budget.left <= 0) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
    }
  }

  /**
   * Adds the span `[from, to)` (spans in order of `from`); answers how many characters it looked
   * at (for a caller's slice budget). The tags and dump lines before it are kept first (all at
   * once: a caller that may meet many calls {@link SegmentCut.keepFarBefore} before).
   */
  add(from: number, to: number): number {
    let looked = 0;
    if (this.nextTag < 0) this.findTag();
    while (this.nextTag < from) {
      looked += this.keep(this.nextTag, this.nextTagEnd);
      this.findTag();
    }
    return looked + this.keep(from, to);
  }

  /**
   * Finds the next tag character or dump line start. The tag reading drops every other
   * character, inert ones too, so it reads across the cut: a copy whose first tags a step
   * decoded (`\u{E0074}…`) and whose last ones the text held came back whole once the segment
   * holding those was cut away (attack9). Every tag is kept, as if a step had changed it. So is
   * every dump line, for the same reason: the dump readings join every dump line of a view, also
   * across other lines between them (a log's), which may hold inert characters; a dump whose
   * second line a step decoded (`%37` for its first digit) was read without its first line
   * (attack16). A dump line is ASCII to its end (its cells and text column), so the segment kept
   * around its start holds the whole line, and its line break.
   */
  private findTag(): void {
    if (this.nextTag < 0 && FIRST_DUMP_LINE.test(this.text)) {
      [this.nextTag, this.nextTagEnd] = [0, FIRST_DUMP_LINE.exec(this.text)![0].length];
      return;
    }
    const found = this.tags.exec(this.text);
    this.nextTag = found ? found.index : Infinity;
    this.nextTagEnd = found ? found.index + found[0].length : 0;
  }

  /** {@link SegmentCut.add} of one span: its segment, joined to the last when they touch. */
  private keep(from: number, to: number): number {
    const { text, starts, ends, inert } = this;
    const n = text.length;
    const last = ends.length - 1;
    // Inside the last segment (short of its closing inert character, which ends it).
    if (last >= 0 && from >= starts[last]! && to < ends[last]!) return 1;
    const lowest = last >= 0 ? ends[last]! : 0;
    let left = from - 1;
    while (left >= lowest && !inert(text.charCodeAt(left))) left--;
    let right = to;
    while (right < n && !inert(text.charCodeAt(right))) right++;
    const end = right < n ? right + 1 : n;
    if (left < lowest && last >= 0) {
      // Reached the last segment without an inert character between: one segment.
      this.covered += end - ends[last]!;
      ends[last] = end;
    } else {
      const start = Math.max(left, 0);
      this.covered += end - start;
      starts.push(start);
      ends.push(end);
    }
    if (this.covered * 2 >= n) this.whole = true;
    return end - Math.max(left, lowest);
  }

  /** The segments' text (flattened) and where each segment starts in it (one past: its end). */
  finish(): { text: string; at: Int32Array } {
    // The tags after the last span added.
    if (this.nextTag < 0) this.findTag();
    while (this.nextTag < Infinity) {
      this.keep(this.nextTag, this.nextTagEnd);
      this.findTag();
    }
    const { starts, ends, text } = this;
    const at = new Int32Array(starts.length + 1);
    let kept = "";
    for (let k = 0; k < starts.length; k++) {
      at[k] = kept.length;
      kept += text.slice(starts[k], ends[k]);
    }
    at[starts.length] = kept.length;
    // Flattened once (a rope of segments is slow to read character by character).
    /\0/.test(kept);
    this.at = at;
    return { text: kept, at };
  }

  /** Where a position of the segments' text lies in the text (after {@link SegmentCut.finish}). */
  origin(): Origin {
    const { starts } = this;
    const at = this.at!;
    return (i, end) => {
      // The segment holding position i (as an end: the one it ends, at a boundary).
      let [lo, hi] = [0, starts.length - 1];
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (end ? at[mid]! < i : at[mid]! <= i) lo = mid;
        else hi = mid - 1;
      }
      return starts[lo]! + (i - at[lo]!);
    };
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
// Its next tag is looked for once: the field then holds `Infinity`, the kind real cuts end with.
keepShape(new SegmentCut("", () => true)).keepsBefore(0);
