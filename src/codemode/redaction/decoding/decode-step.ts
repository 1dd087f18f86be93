/**
 * One decoding step: the same text with one layer of character-level encoding undone, and for
 * every character of the view where it came from in the original, so a secret found in a view
 * is cut out of the original exactly where its encoded form was.
 *
 * A step undoes, left to right in one pass, every sequence of:
 * - percent-encoding: `%XX` (a byte, one character per byte) and `%uXXXX`;
 * - HTML/XML character references: `&#97;`, `&#x61;` (the `;` optional, as HTML reads them) and
 *   the named references for ASCII punctuation (`&sol;`, `&colon;`, `&period;`, …);
 * - JavaScript, JSON and CSS escapes: `\xHH`, `\uHHHH`, `\u{H…}`, CSS `\H…` (1–6 hex digits and
 *   one optional space), and `\` before any other character (`\n`, `\/`, `\"`, `\-`);
 * - quoted-printable: `=XX` and soft line breaks (`=` at the end of a line).
 * Steps repeat on their own output ({@link decodeSteps}: percent-encoded twice, a character
 * reference inside a percent-encoding), so compositions of character layers are undone too.
 *
 * Does not do: JavaScript's legacy octal escapes (`\141`: CSS hex here;
 * ../spellings/octal-view.ts reads them as octal in a view of its own), `+` as a space (a
 * form-encoded secret with a space is matched as a literal form instead), MIME encoded words.
 */
import { PAUSE, runToEnd, SLICE_POSITIONS, sliceBudget, type Pause, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import {
  changedSegmentsInSlices,
  mayHoldInert,
  MIN_CUT,
  plainViews,
  SegmentCut,
} from "./changed-segments";
import { withoutNulsInSlices } from "./nul-free-view";
import { keepShape } from "../kept-shapes";

/** The longest sequence a step decodes (`&DiacriticalGrave;`). */
export const LONGEST_SEQUENCE = 18;

const NAMED: Record<string, string> = {
  Tab: "\t",
  NewLine: "\n",
  excl: "!",
  quot: '"',
  QUOT: '"',
  num: "#",
  dollar: "$",
  percnt: "%",
  amp: "&",
  AMP: "&",
  apos: "'",
  lpar: "(",
  rpar: ")",
  ast: "*",
  midast: "*",
  plus: "+",
  comma: ",",
  period: ".",
  sol: "/",
  colon: ":",
  semi: ";",
  lt: "<",
  LT: "<",
  equals: "=",
  gt: ">",
  GT: ">",
  quest: "?",
  commat: "@",
  lsqb: "[",
  lbrack: "[",
  bsol: "\\",
  rsqb: "]",
  rbrack: "]",
  Hat: "^",
  lowbar: "_",
  UnderBar: "_",
  grave: "`",
  DiacriticalGrave: "`",
  lcub: "{",
  lbrace: "{",
  verbar: "|",
  vert: "|",
  VerticalLine: "|",
  rcub: "}",
  rbrace: "}",
  nbsp: "\xa0",
};

const SINGLE: Record<string, string> = { n: "\n", r: "\r", t: "\t", v: "\v", "0": "\0" };

/** Families of character-level encoding, as bits: a step decodes the families it is given. */
export const PERCENT = 1;
export const CHARACTER_REFERENCE = 2;
export const SCRIPT_ESCAPE = 4;
export const CSS_ESCAPE = 8;
export const QUOTED_PRINTABLE = 16;
/** Every family. */
export const ALL_FAMILIES = 31;
/** Each family on its own, for a caller that decodes all but one. */
export const FAMILIES = [PERCENT, CHARACTER_REFERENCE, SCRIPT_ESCAPE, CSS_ESCAPE, QUOTED_PRINTABLE];

const hexValue = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;

/** `count` hex digits at `at` as a number, or -1. */
function hexAt(text: string, at: number, count: number): number {
  if (at + count > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = hexValue(text.charCodeAt(i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** How many digits {@link digitsAt} read last (no array per run of digits). */
let digitsLength = 0;

/**
 * The value of the longest run of at most `max` digits (hex or decimal) at `at`; its length goes
 * to {@link digitsLength}.
 */
function digitsAt(text: string, at: number, max: number, radix: 10 | 16): number {
  let value = 0;
  let length = 0;
  while (length < max && at + length < text.length) {
    const c = text.charCodeAt(at + length);
    const digit = radix === 16 ? hexValue(c) : c >= 48 && c <= 57 ? c - 48 : -1;
    if (digit < 0) break;
    value = value * radix + digit;
    length++;
  }
  digitsLength = length;
  return value;
}

const fromCode = (code: number) => (code <= 0x10ffff ? String.fromCodePoint(code) : undefined);

/**
 * The sequence {@link sequenceAt} found last: what it decodes to, its length, and its family
 * when it read digits (0 for `\n`, `&sol;`, a soft line break: sequences that cannot swallow a
 * secret's characters). Fields, not a tuple per sequence: random bytes try a sequence every ~64
 * characters of every view, and the tuples (with the digit runs' pairs) were ~20 MB of young
 * garbage per 4 MiB body, each MB of it paid in scavenges (bench/README.md, "Random bytes: the
 * redaction's garbage"). Read before the next call: every caller copies them at once.
 */
const found = { decoded: "", length: 0, family: 0 };

/** Sets {@link found} and answers true (a sequence was found). */
function sequence(decoded: string, length: number, family: number): true {
  found.decoded = decoded;
  found.length = length;
  found.family = family;
  return true;
}

/** Whether a character is one CSS ends an escape's hex digits with (and swallows). */
const cssSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

/**
 * Whether a sequence of one of `families` starts at `at` (a lead character); if so it is in
 * {@link found}.
 */
function sequenceAt(text: string, at: number, families: number): boolean {
  const lead = text.charCodeAt(at);
  const next = text.charCodeAt(at + 1);
  if (lead === 37 /* % */ && families & PERCENT) {
    if (next === 117 || next === 85) {
      const unit = hexAt(text, at + 2, 4);
      if (unit >= 0) return sequence(String.fromCharCode(unit), 6, PERCENT);
    }
    const byte = hexAt(text, at + 1, 2);
    return byte >= 0 && sequence(String.fromCharCode(byte), 3, PERCENT);
  }
  if (lead === 38 /* & */ && families & CHARACTER_REFERENCE) {
    if (next === 35) {
      const hex = text.charCodeAt(at + 2) === 120 || text.charCodeAt(at + 2) === 88;
      const code = hex ? digitsAt(text, at + 3, 6, 16) : digitsAt(text, at + 2, 7, 10);
      const length = digitsLength;
      if (length === 0) return false;
      const end = at + (hex ? 3 : 2) + length;
      const decoded = fromCode(code);
      return (
        decoded !== undefined &&
        sequence(decoded, end - at + (text.charCodeAt(end) === 59 ? 1 : 0), CHARACTER_REFERENCE)
      );
    }
    // Names are at most 16 letters: look no further (an indexOf to the end is quadratic), and
    // in place (a slice per `&` was garbage of its own).
    const last = Math.min(text.length, at + 18);
    let semi = at + 1;
    while (semi < last && text.charCodeAt(semi) !== 59) semi++;
    if (semi >= last) return false;
    const name = text.slice(at + 1, semi);
    return Object.hasOwn(NAMED, name) && sequence(NAMED[name]!, semi - at + 1, 0);
  }
  if (lead === 92 /* \ */ && at + 1 < text.length) {
    if (families & SCRIPT_ESCAPE) {
      if (next === 120) {
        const byte = hexAt(text, at + 2, 2);
        if (byte >= 0) return sequence(String.fromCharCode(byte), 4, SCRIPT_ESCAPE);
      }
      if (next === 117 && text.charCodeAt(at + 2) === 123 /* { */) {
        const code = digitsAt(text, at + 3, 6, 16);
        const length = digitsLength;
        const decoded =
          length > 0 && text.charCodeAt(at + 3 + length) === 125 /* } */
            ? fromCode(code)
            : undefined;
        if (decoded !== undefined) return sequence(decoded, length + 4, SCRIPT_ESCAPE);
      }
      if (next === 117) {
        const unit = hexAt(text, at + 2, 4);
        if (unit >= 0) return sequence(String.fromCharCode(unit), 6, SCRIPT_ESCAPE);
      }
    }
    if (hexValue(next) >= 0) {
      if (!(families & CSS_ESCAPE)) return false;
      const code = digitsAt(text, at + 1, 6, 16);
      const length = digitsLength;
      const decoded = fromCode(code);
      if (decoded === undefined) return false;
      const space = cssSpace(text.charCodeAt(at + 1 + length)) ? 1 : 0;
      return sequence(decoded, 1 + length + space, CSS_ESCAPE);
    }
    if (!(families & (SCRIPT_ESCAPE | CSS_ESCAPE))) return false;
    const single = text[at + 1]!;
    return families & SCRIPT_ESCAPE
      ? sequence(Object.hasOwn(SINGLE, single) ? SINGLE[single]! : single, 2, 0)
      : sequence(single, 2, 0);
  }
  if (lead === 61 /* = */ && families & QUOTED_PRINTABLE) {
    const byte = hexAt(text, at + 1, 2);
    if (byte >= 0) return sequence(String.fromCharCode(byte), 3, QUOTED_PRINTABLE);
    if (next === 10) return sequence("", 2, 0);
    if (next === 13 && text.charCodeAt(at + 2) === 10) return sequence("", 3, 0);
  }
  return false;
}

/** Characters {@link SequenceLeads} looks at itself before it asks its regular expression. */
const NEAR = 16;

/**
 * Where the next sequence's start (`% & \ =`) stands in a text, found natively: a pass over a
 * view's every character in JavaScript was most of a step's cost where starts are rare (random
 * bytes, ordinary text). The last answer is kept, so asking again from a position at or before
 * it costs nothing, and asking from positions that only grow scans the text once in all (a
 * step's windows ask from positions that grow, and may ask short of what was found).
 */
class SequenceLeads {
  private readonly pattern = /[%&\\=]/g;
  /** The last position asked from, and the first start at or after it. */
  private from = -1;
  private found = -1;

  constructor(private readonly text: string) {}

  /** The first start at or after `at`, or the text's length when none. */
  next(at: number): number {
    if (at >= this.from && at <= this.found) return this.found;
    // A few characters in JavaScript first: where sequences stand close together (`%25%25…`,
    // a flood of windows) a regular expression's call per sequence cost more than it saved
    // (the `%25` rows took +30 % CPU).
    const { text } = this;
    const near = Math.min(text.length, at + NEAR);
    for (let i = at; i < near; i++) {
      const c = text.charCodeAt(i);
      if (c === 37 || c === 38 || c === 92 || c === 61) return i;
    }
    if (near === text.length) return near;
    // `test`, not `exec`: no match array per call (~10 MB of young garbage per 4 MiB random
    // body); a start is one character, so it stands just before where the match left lastIndex.
    this.pattern.lastIndex = near;
    const matched = this.pattern.test(text);
    this.from = at;
    this.found = matched ? this.pattern.lastIndex - 1 : text.length;
    return this.found;
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
keepShape(new SequenceLeads(""));

/**
 * Positions tried by {@link decodeStep} since the isolate started: a count that does not depend
 * on the machine, so a test can bound the work per character (targets in time live in the
 * benchmark, bench/redaction.mjs --heavy); and the characters of views read whole that were cut
 * away before a step ({@link sequenceSegmentsInSlices}).
 */
export const decodeWork = { positions: 0, cut: 0 };

/**
 * One decoding step over a view (see the file header), or undefined when nothing in it decodes.
 * When the view was itself decoded, only sequences touching what that step produced are tried.
 * Linear in the view's length: every position is tried at most once.
 * @param view - a text and its map to the original
 * @param families - which families to decode (bits), every family by default
 */
export function decodeStep(view: View, families = ALL_FAMILIES): View | undefined {
  return runToEnd(decodeStepInSlices(view, families));
}

/**
 * {@link decodeStep} as a sliced pass (../slices.ts): pauses every {@link SLICE_POSITIONS}
 * positions (and windows), so a step over megabytes of sequences does not hold the thread.
 * @param view - a text and its map to the original
 * @param families - which families to decode (bits)
 * @param inert - for a view that was searched whole: whether a character is inert and in no
 *   form of a secret (./changed-segments.ts); a view the step reads whole is then first cut to
 *   the segments around its sequences ({@link sequenceSegmentsInSlices}), and the decoded view
 *   to its changed segments
 */
function* decodeStepInSlices(
  view: View,
  families: number,
  inert?: (code: number) => boolean,
): Sliced<View | undefined> {
  // Whether the view holds no character that may be inert: then neither the view nor what the
  // step makes of it can be cut unless the step produces one.
  const plain = inert !== undefined && (plainViews.has(view) || !mayHoldInert(view.text));
  if (inert && !view.changed && !plain) {
    const cut = yield* sequenceSegmentsInSlices(view, families, inert);
    if (!cut) return undefined;
    view = cut;
  }
  let producedWide = false;
  const { text, changed } = view;
  const budget = sliceBudget();
  const leads = new SequenceLeads(text);
  const builder = new ViewBuilder(text);
  let decodedFamilies = 0;
  const windows = changed?.count ?? 1;
  // Positions before `scanned` were tried under an earlier window: a sequence there either was
  // decoded or ends before that window's start, so before this one's too. Trying them again made
  // a step over a text of adjacent sequences (`%25%25…`) cost LONGEST_SEQUENCE times its length.
  let scanned = 0;
  for (let w = 0; w < windows; w++) {
    const from = changed ? changed.outStart(w) : 0;
    const to = changed ? from + changed.outLength(w) : text.length;
    const end = Math.min(text.length, to + 1);
    const first = Math.max(builder.consumed, scanned, from - LONGEST_SEQUENCE);
    decodeWork.positions += Math.max(0, end - first);
    // A window costs a little even when it tries no position (a million of them in 4 MiB).
    if (--budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    for (let i = first; i < end;) {
      // To the next sequence's start natively, as in sequenceSegmentsInSlices; the positions
      // passed over count as tried.
      const at = Math.min(leads.next(i), end);
      budget.left -= at - i + 1;
      if (budget.left <= 0) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
      if (at >= end) break;
      const hit = sequenceAt(text, at, families);
      i = at + 1;
      if (!hit) continue;
      const { decoded, length, family } = found;
      if (changed && at + length <= from) continue;
      decodedFamilies |= family;
      if (plain && !producedWide)
        for (let k = 0; k < decoded.length; k++)
          if (decoded.charCodeAt(k) >= 0xc0) producedWide = true;
      builder.replace(at, length, decoded);
      i = at + length;
    }
    scanned = Math.max(scanned, end);
  }
  const decoded = builder.finish();
  if (decoded === undefined) return undefined;
  const stepped: View = {
    text: decoded,
    origin: compose(view.origin, builder.map.origin()),
    changed: builder.map,
    digitFamilies: decodedFamilies,
  };
  // What the step left is the view's own text, searched already: only its changed segments are
  // new (a step of a reading changes a few places of a view of the whole body).
  if (plain && !producedWide) {
    plainViews.add(stepped);
    return stepped;
  }
  return inert ? yield* changedSegmentsInSlices(stepped, inert) : stepped;
}

/**
 * The segments of a view around the sequences a step over all of it would decode, as a view of
 * their own (./changed-segments.ts, `SegmentCut`), or the view itself when it is short, holds no
 * inert character, or the segments cover half of it; undefined when it holds no sequence.
 *
 * Why this is all a step needs (issue #40): a sequence is ASCII (but the character a `\`
 * escapes), so it lies between two inert characters, and each segment starts where a step over
 * the whole view starts afresh; the step decodes the same sequences in the segments as in the
 * view. What the decoded view holds outside them is the view's own text, searched already
 * (the caller passes `inert` only then), and no form of a secret holds an inert character, so
 * no copy in the decoded view spans a segment's end. Random bytes hold a few chance sequences
 * per KB and an inert character every ~20 bytes: each step and every view after it made a view
 * of the whole body (~75 views of 4 MB for one binary answer), now of a fraction of it.
 * @param view - a view made by no step (a step of a decoded view reads only what it changed)
 * @param families - which families the step decodes (bits)
 * @param inert - whether a character is inert and in no form
 */
function* sequenceSegmentsInSlices(
  view: View,
  families: number,
  inert: (code: number) => boolean,
): Sliced<View | undefined> {
  const { text } = view;
  if (text.length < MIN_CUT || !mayHoldInert(text)) return view;
  const cut = new SegmentCut(text, inert);
  const budget = sliceBudget();
  const leads = new SequenceLeads(text);
  // The step's own pass (greedy, left to right), keeping where each sequence is; from one
  // sequence's start to the next natively (random bytes: a start every ~64 characters, and a
  // pass of one character at a time over the views of a binary body was ~10 % of its redaction).
  for (let i = 0; i < text.length;) {
    const at = leads.next(i);
    // The positions passed over count as tried (the slice stays bounded in work).
    budget.left -= at - i + 1;
    if (budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    if (at >= text.length) break;
    if (!sequenceAt(text, at, families)) {
      i = at + 1;
      continue;
    }
    const length = found.length;
    if (cut.keepsBefore(at)) yield* cut.keepFarBefore(at, budget);
    if (!cut.whole) budget.left -= cut.add(at, at + length);
    if (cut.whole) {
      decodeWork.positions += at;
      return view;
    }
    i = at + length;
  }
  decodeWork.positions += text.length;
  if (cut.starts.length === 0) return undefined;
  yield* cut.keepFarBefore(Infinity, budget);
  if (cut.whole) return view;
  const { text: kept } = cut.finish();
  decodeWork.cut += text.length - kept.length;
  return { text: kept, origin: compose(view.origin, cut.origin()) };
}

/** How many decoding steps are tried in a row: three layers of character-level encoding. */
export const MAX_STEPS = 3;

/**
 * Up to `max` decoding steps of the given families from a view, each on the last one's output,
 * with the pauses of their sliced passes (../slices.ts) between them. After a step that produced
 * a NUL, its NUL-free view (./nul-free-view.ts) too, and the steps left from it: UTF-16 under a
 * character-level encoding (`%74%00%6f%00…`) reads as the text only once decoded and its NULs
 * dropped. A body without NULs costs nothing more.
 * @param start - the view the first step decodes
 * @param families - which families to decode (bits)
 * @param max - how many steps at most ({@link MAX_STEPS} by default)
 * @param inert - only when `start` is searched whole: whether a character is inert and in no form
 *   of a secret; the views made are then cut to what the steps changed
 *   ({@link sequenceSegmentsInSlices})
 */
export function* decodeSteps(
  start: View,
  families: number,
  max = MAX_STEPS,
  inert?: (code: number) => boolean,
): Generator<View | Pause> {
  let view: View | undefined = start;
  for (let step = 0; step < max && view; step++) {
    view = yield* decodeStepInSlices(view, families, inert);
    if (!view) return;
    yield view;
    const nulFree = yield* withoutNulsInSlices(view, inert);
    if (!nulFree) continue;
    yield nulFree;
    // The steps left, from the NUL-free view: `%25%00%37%00…` is percent-encoding once decoded.
    yield* decodeSteps(nulFree, families, max - step - 1, inert);
  }
}
