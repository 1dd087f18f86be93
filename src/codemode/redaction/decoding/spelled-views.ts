/**
 * The spelled-out readings of a view, and the decoding steps after them: which of the readings
 * in ../spellings/ are made of a view, in what order, and when what they produced is decoded
 * again (char codes of a percent-encoding, full-width `％７４`). Each reading is made only when
 * the view can hold what it reads, so an ordinary body costs little.
 */
import { compactViewInSlices, foldedViewInSlices, type Seen } from "../spellings/compact-view";
import { listsViewInSlices } from "../spellings/lists-view";
import { narrowedCompacts, notationViewsInSlices } from "../spellings/notation-views";
import { tagViewInSlices } from "../spellings/tag-view";
import { PAUSE, SLICE_POSITIONS, type Pause, type Sliced } from "../slices";
import type { View } from "../view-builder";
import { ALL_FAMILIES, decodeSteps } from "./decode-step";
import { stepsBesideFolded } from "./beside-folded-steps";
import { changedSegmentsInSlices } from "./changed-segments";
import { withoutNulsInSlices } from "./nul-free-view";

/**
 * The spelled-out readings of a view (../spellings/): its lists read as characters (both
 * ways when two-digit numbers could be hex or decimal), then compacted and folded, and up to
 * {@link MAX_SPELLED_STEPS} decoding steps on what those produced (char codes of a
 * percent-encoding, full-width `％７４`).
 *
 * A decoded view is read again only for what its step produced: lists when the step produced a
 * digit, a separator or another part of a list (`listPart`), compaction when it produced
 * whitespace or a character beyond ASCII or stands beside one, steps when a reading produced the
 * start of a sequence. An ordinary JSON body (its `\n` and `\"` escapes decoded) costs one
 * compacted view of its decoded view, no more.
 * @param view - the text, its NUL-free view or a decoded view
 * @param inert - whether a character is inert and in no form of a secret (./changed-segments.ts):
 *   the decoding steps after a reading are then cut to where they change it (./decode-step.ts)
 * @param everyReading - make every reading whose making is decided by a look over the whole
 *   view (compaction and lists after a step, the folded readings, the folded view's compaction,
 *   the decoding steps after each reading) as if the look had found what it looks for: for a
 *   view of a text cut to its long stretches (./long-stretches.ts), whose whole may have held it
 *   elsewhere
 * @param besideDropped - decode its compact views beside what compaction dropped
 *   (./beside-folded-steps.ts): for bytes' UTF-8 reading, which has no decoding chain
 */
export function* spelledViews(
  view: View,
  inert?: (code: number) => boolean,
  everyReading = false,
  besideDropped = false,
): Generator<View | Pause> {
  // A notation's compact view, and the lists of a folded view, are made of what the notation
  // or the folding changed: elsewhere they read as the view's own readings (issue #40).
  const narrow = inert && ((made: View) => changedSegmentsInSlices(made, inert));
  for (const notation of notationViewsInSlices(view, narrow))
    if (notation === PAUSE) yield notation;
    else yield* afterReading(notation, false, inert, undefined, everyReading);
  const decoded = view.changed !== undefined;
  // One pass for both classes (a step of a flood of escapes produced a million characters).
  let classes = decoded && !everyReading ? yield* producedClasses(view) : COMPACTED_BIT | LIST_BIT;
  // Latin-1's `ª º ¹ ² ³` fold to ASCII letters and digits (NFKC) wherever they stand: a step
  // that decoded `%5F` in `tºk%5FLive…` produced `_` beside no character compaction reads, and
  // no view held the copy both decoded and folded. One native look, only when nothing else
  // asked for compaction (a step that produced one of them, or whitespace, did).
  if ((classes & COMPACTED_BIT) === 0 && LATIN1_FOLDED.test(view.text)) classes |= COMPACTED_BIT;
  const compacting = (classes & COMPACTED_BIT) !== 0;
  // Whether compaction met a tag character: only then is the tag view made.
  const seen: Seen = { tags: false, folded: false };
  let listed = false;
  if (classes & LIST_BIT) {
    // One reading at a time: the second (two-digit numbers read as hex) is made only after the
    // first and what comes of it were searched, so the two are never held at once.
    const lists = yield* listsViewInSlices(view);
    let reading = lists.view;
    if (reading) {
      listed = true;
      yield* readingViews(reading, compacting, seen, inert, everyReading, besideDropped);
    }
    reading = undefined;
    lists.view = undefined;
    if (lists.ambiguous) {
      reading = (yield* listsViewInSlices(view, true, lists)).view;
      if (reading)
        yield* readingViews(reading, compacting, seen, inert, everyReading, besideDropped);
    }
  }
  if (!compacting) return;
  // A text with lists was compacted with its lists read; one without, as it is.
  let compact = listed ? undefined : yield* compactViewInSlices(view, seen);
  if (compact)
    yield* afterReading(compact, seen.folded, inert, undefined, everyReading, besideDropped);
  // A list spelled in folded characters (full-width digits `１１６，１１１`, or ASCII digits
  // between full-width commas `116，111`) reads as one only after folding; only a text with such
  // characters can hold one, so others cost nothing.
  // Read in the compact view (digits of one number spaced apart join) and in the folded view,
  // whose spaces stay: compaction glued a word before the list onto its first number (`x
  // １１６,…` read `x116,…`, the first item lost) and made one number of a space-joined list.
  // The folded view is read whether or not the text held an ASCII list too (then no compact
  // view of the text is made, and a full-width list beside an ASCII one went unread).
  if (everyReading || FOLDED_DIGITS.test(view.text) || foldedSeparator(view.text)) {
    let relisted = compact ? (yield* listsViewInSlices(compact)).view : undefined;
    if (relisted) yield relisted;
    // One view at a time: the compact view and its reading are let go first.
    [compact, relisted] = [undefined, undefined];
    const folded = yield* foldedViewInSlices(view);
    if (folded) relisted = (yield* listsViewInSlices(narrow ? yield* narrow(folded) : folded)).view;
    if (relisted) yield relisted;
    relisted = undefined;
    // And its notations (octal numbers, code points), which no list reader takes: `164，157，…`
    // and `U+0074、U+006f、…` came back whole (attack8).
    if (folded) yield* foldedNotations(folded, narrow, inert, everyReading);
  }
  if (!seen.tags) return;
  // Tags alone (a copy in tags between visible noise), then tags where they stand (a copy whose
  // characters alternate between visible letters and tags); one view at a time.
  let tags = yield* tagViewInSlices(view);
  if (tags) yield* afterReading(tags, false, inert, undefined, everyReading);
  tags = yield* tagViewInSlices(view, true);
  if (!tags) return;
  yield* afterReading(tags, false, inert, undefined, everyReading);
  // And compacted: visible characters between the tags that compaction reads (full-width
  // letters, spaces between them) are read with the tags only there (attack8).
  const compactSeen: Seen = { tags: false, folded: false };
  compact = yield* compactViewInSlices(tags, compactSeen);
  tags = undefined;
  if (compact) yield* afterReading(compact, compactSeen.folded, undefined, undefined, everyReading);
}

/** A list reading, the decoding steps on what it produced, and its compact view. */
function* readingViews(
  reading: View,
  compacting: boolean,
  seen: Seen,
  inert?: (code: number) => boolean,
  everyReading = false,
  besideDropped = false,
): Generator<View | Pause> {
  yield* afterReading(reading, false, inert, undefined, everyReading);
  if (!compacting) return;
  const compact = yield* compactViewInSlices(reading, seen);
  if (compact)
    yield* afterReading(compact, seen.folded, inert, undefined, everyReading, besideDropped);
}

/**
 * The folded view's notation views (octal numbers, code points, …), each with its compact view
 * when it holds a character beyond ASCII, and the steps after each.
 *
 * With `narrow` (issue #40): each notation view's compact view is made of the segments the
 * notation changed (../spellings/notation-views.ts), and the folded view's own compact view once,
 * not the compact view of each whole notation view (random bytes: two compactions of 4 MB for
 * the 486 and 1 changes of the octal and code point views, ~17 % of their redaction). Not the
 * other notation views' `narrow` alone: the folded view's compaction is not the text's (`、`
 * is read as `,`, and a UTF-8 pair whose bytes an invisible character kept apart is joined), so
 * it is searched itself. Why nothing is lost (./changed-segments.ts): compaction, the NUL-free
 * view and the decoding steps read no inert character and pass each on, and no form holds one,
 * so a find in the compact view of a whole notation view, or in a view after it, lies in one
 * segment's reading; a segment the notation did not change is the folded view's, and reads in
 * the folded view's compact view as it did there; one it changed is in the narrowed view, with
 * the inert characters that bound it. The steps: a compact view of a whole notation view had
 * them when its compaction produced a sequence's start in some segment, which the folded view's
 * compact view or a narrowed one then produced too; so the narrowed ones always get them (they
 * are short), and the folded view's compact view when any of them produced one. Each of these
 * views is searched whole, so its NUL-free view and steps are cut to what they change, as after
 * every other reading (./nul-free-view.ts, ./decode-step.ts).
 */
function* foldedNotations(
  folded: View,
  narrow?: (made: View) => Sliced<View>,
  inert?: (code: number) => boolean,
  everyReading = false,
): Generator<View | Pause> {
  if (!narrow) {
    for (const notation of notationViewsInSlices(folded))
      if (notation === PAUSE) yield notation;
      else yield* afterReading(notation);
    return;
  }
  // Whether a notation view held a character beyond ASCII (its whole compact view was made),
  // and whether a compaction produced a sequence's start.
  let [compacted, lead] = [everyReading, false];
  for (const made of notationViewsInSlices(folded, narrow)) {
    if (made === PAUSE) yield made;
    else if (narrowedCompacts.has(made)) {
      lead ||= yield* produced(made, SEQUENCE_LEAD);
      yield* afterReading(made, false, inert, true, everyReading);
    } else {
      compacted ||= NON_ASCII.test(made.text);
      yield* afterReading(made, false, undefined, undefined, everyReading);
    }
  }
  if (!compacted) return;
  const compact = yield* compactViewInSlices(folded);
  if (!compact) return;
  lead ||= everyReading || (yield* produced(compact, SEQUENCE_LEAD));
  yield* afterReading(compact, false, inert, lead, everyReading);
}

const NON_ASCII = /[^\0-\x7f]/;

/**
 * A reading, its NUL-free view when it produced a NUL (a list of UTF-16 bytes, `116,0,111,0,…`),
 * then up to {@link MAX_SPELLED_STEPS} decoding steps when it produced a sequence's start; for a
 * compact view that did not, the steps beside what it folded (./beside-folded-steps.ts).
 * @param reading - the reading
 * @param folded - whether it is a compact view, and compaction folded a character beyond ASCII
 *   to ASCII
 * @param inert - as for {@link spelledViews} (the reading is searched before its steps)
 * @param steps - whether the steps are made (by default: when it produced a sequence's start)
 * @param everyReading - as for {@link spelledViews}: whether the reading produced a sequence's
 *   start is a look over all of it, and a reading of a text cut to its long stretches
 *   (./long-stretches.ts) lacks what the stretches left out produced: by default the steps are
 *   made, and for a compact view that folded, the steps beside what it folded too (they try a
 *   sequence that ends right before a folded character, which the steps over what compaction
 *   changed do not)
 * @param besideDropped - for a compact view: the steps beside what it dropped too
 *   ({@link spelledViews})
 */
function* afterReading(
  reading: View,
  folded = false,
  inert?: (code: number) => boolean,
  steps?: boolean,
  everyReading = false,
  besideDropped = false,
): Generator<View | Pause> {
  yield reading;
  const nulFree = yield* withoutNulsInSlices(reading, inert);
  if (nulFree) yield nulFree;
  if (everyReading && steps === undefined) {
    yield* decodeSteps(reading, ALL_FAMILIES, MAX_SPELLED_STEPS, inert);
    if (folded || besideDropped)
      yield* stepsBesideFolded(reading, MAX_SPELLED_STEPS, besideDropped);
    return;
  }
  // A step's view with no such character anywhere produced none: one native search instead of
  // a walk over every sequence (a list reading of `12 12 12 …` is a million, issue #40).
  const leads = !reading.changed || SEQUENCE_LEAD_ANYWHERE.test(reading.text);
  if (steps ?? (leads && (yield* produced(reading, SEQUENCE_LEAD))))
    yield* decodeSteps(reading, ALL_FAMILIES, MAX_SPELLED_STEPS, inert);
  else if (folded || besideDropped)
    yield* stepsBesideFolded(reading, MAX_SPELLED_STEPS, besideDropped);
}

/**
 * Whether a view's step produced a character of the class (a view made by no step: true); a
 * sliced pass (a step of a flood of escapes produced a million characters).
 */
function* produced(view: View, matches: (code: number) => boolean): Sliced<boolean> {
  const { changed, text } = view;
  if (!changed) return true;
  let budget = SLICE_POSITIONS;
  for (let t = 0; t < changed.count; t++) {
    const start = changed.outStart(t);
    const end = start + changed.outLength(t);
    for (let i = start; i < end; i++) if (matches(text.charCodeAt(i))) return true;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return false;
}

/** Sequences {@link producedClasses} has looked at so far (tests count them). */
export const producedWork = { sequences: 0 };

/** The classes {@link producedClasses} tells apart, as bits. */
const COMPACTED_BIT = 1;
const LIST_BIT = 2;

/**
 * Which of {@link COMPACTED} and {@link LIST_CHARACTER} a decoded view's step produced (bits),
 * in one sliced pass that ends once both are found.
 */
function* producedClasses(view: View): Sliced<number> {
  const { changed, text } = view;
  if (!changed) return COMPACTED_BIT | LIST_BIT;
  // A class no character of the text can give is not looked for, so the pass ends once it
  // found the classes the text can give: the same answer without walking every sequence of a
  // flood of escapes (a step of the e2e body produced `ª` beside `%` and `A` in each of 1.2
  // million sequences, a list part nowhere; 14 % of its redaction). Why none is missed:
  // - COMPACTED is a test of one character of the text (or NaN beyond its ends: false), so
  //   without {@link COMPACTED_ANYWHERE} it is false everywhere;
  // - a list part ({@link listPart}) needs somewhere in the text a digit or one of `, . : ; '`
  //   (a list character; a joiner's item beside is a digit or a quote), a quote (between,
  //   beside or around), or a hex letter or `x` beside a digit or a hex letter: without a digit,
  //   a hex letter beside a hex letter or an `x`, which {@link LIST_ANYWHERE} matches in either
  //   order.
  const wanted =
    (COMPACTED_ANYWHERE.test(text) ? COMPACTED_BIT : 0) | (LIST_ANYWHERE.test(text) ? LIST_BIT : 0);
  if (wanted === 0) return 0;
  let classes = 0;
  let budget = SLICE_POSITIONS;
  for (let t = 0; t < changed.count; t++) {
    const start = changed.outStart(t);
    const end = start + changed.outLength(t);
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (COMPACTED(c)) classes |= COMPACTED_BIT;
      if (listPart(text, i, c)) classes |= LIST_BIT;
    }
    // What compaction drops right beside what the step produced joins it to its neighbours
    // (`%74 %6f …`, letters between zero-width or tag characters, full-width digits beside
    // an escaped comma): compaction reads it as much as if the step had produced it.
    if (COMPACTED(text.charCodeAt(start - 1)) || COMPACTED(text.charCodeAt(end)))
      classes |= COMPACTED_BIT;
    producedWork.sequences++;
    if (classes === wanted) return classes;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return classes;
}

/** Digits, `, . : ;` and `'`: a list's own characters, read for wherever a step produced them. */
const LIST_CHARACTER = (c: number) =>
  (c >= 48 && c <= 57) || c === 44 || c === 46 || c === 58 || c === 59 || c === 39;
const DIGIT = (c: number) => c >= 48 && c <= 57;
const HEX_LETTER = (c: number) => (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const QUOTE = (c: number) => c === 39 || c === 34;
/** Whitespace and `- | /`: what joins a list's items besides {@link LIST_CHARACTER}. */
const JOINER = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 45 || c === 124 || c === 47;

/**
 * Whether the character a step produced at `i` makes part of a list (../spellings/list-items.ts):
 * a digit or separator of {@link LIST_CHARACTER}; a hex letter or the `x` of `0x` beside a hex
 * digit; a quote beside a digit or around one character (`["t","o"]`); a character between
 * quotes; whitespace or `- | /` whose nearest other characters are a digit or a quote. A step
 * that spelled only a list's spaces, dashes, quotes or hex letters (`116%20111%20…`,
 * `%22116%22`, `6%66`) made the list as much as one that spelled its digits; read for digits
 * alone, such a list went unread, and since the changed segments of a later step
 * (./changed-segments.ts) no later view reread it either. Not every produced quote or space:
 * an ordinary JSON body's `\"` and `\n` stay no reason for a lists reading.
 */
function listPart(text: string, i: number, c: number): boolean {
  if (LIST_CHARACTER(c)) return true;
  const [before, after] = [text.charCodeAt(i - 1), text.charCodeAt(i + 1)];
  if (QUOTE(before) && QUOTE(after)) return true;
  if (HEX_LETTER(c) || c === 120 || c === 88)
    return DIGIT(before) || DIGIT(after) || HEX_LETTER(before) || HEX_LETTER(after);
  if (QUOTE(c))
    return (
      DIGIT(before) ||
      DIGIT(after) ||
      QUOTE(text.charCodeAt(i - 2)) ||
      QUOTE(text.charCodeAt(i + 2))
    );
  if (!JOINER(c)) return false;
  return itemBeside(text, i, -1) || itemBeside(text, i, 1);
}

/**
 * Whether the first character from `i` in direction `step` past joiners and separators is a
 * digit, or a quote around a number or one character.
 */
function itemBeside(text: string, i: number, step: -1 | 1): boolean {
  for (let k = 1, j = i + step; k <= 8; k++, j += step) {
    const c = text.charCodeAt(j);
    if (JOINER(c) || c === 44 || c === 46 || c === 58 || c === 59) continue;
    // A quote counts when it holds a number or one character (`"116" "111"`, `"t" "o"`).
    return (
      DIGIT(c) ||
      (QUOTE(c) && (DIGIT(text.charCodeAt(j + step)) || QUOTE(text.charCodeAt(j + 2 * step))))
    );
  }
  return false;
}

/** Whitespace or anything beyond ASCII: what compaction drops or folds. */
const COMPACTED = (c: number) => c === 32 || (c >= 9 && c <= 13) || c > 0x7f;
/** {@link COMPACTED}, searched for natively. */
const COMPACTED_ANYWHERE = /[\t-\r \u0080-\uffff]/;
/** What a text holds if a step can have produced a list part in it ({@link producedClasses}). */
const LIST_ANYWHERE = /[0-9,.:;'"]|[a-fA-FxX][a-fA-F]|[a-fA-F][xX]/;
/** The Latin-1 characters NFKC folds to ASCII letters or digits. */
const LATIN1_FOLDED = /[\xaa\xba\xb9\xb2\xb3]/;
/** `% & \ =`: what starts a character-level sequence. */
const SEQUENCE_LEAD = (c: number) => c === 37 || c === 38 || c === 92 || c === 61;
/** {@link SEQUENCE_LEAD}, searched for natively. */
const SEQUENCE_LEAD_ANYWHERE = /[%&\\=]/;

/**
 * Characters NFKC folds to ASCII digits or hex letters (full-width and mathematical digits), to
 * the `x` of a `0x` prefix or to a quote (full-width `ｘ Ｘ ＂ ＇`): a list whose prefixes or
 * quotes alone are full-width (`0ｘ74,0ｘ6f,…`, `＂t＂,＂o＂,…`) reads as one only once folded, and
 * went through unless another of these stood somewhere in the text (issue #40's CJK review).
 */
const FOLDED_DIGITS =
  /[\uff10-\uff19\uff21-\uff26\uff41-\uff46\uff38\uff58\uff02\uff07\u{1d7ce}-\u{1d7ff}]/u;
/**
 * The characters that read as a list separator once folded: full-width `，．：；－｜／`, Unicode
 * spaces, the ideographic commas `、`, every other character NFKC folds to a list separator (the
 * small forms `﹐﹒﹔﹕﹣`, the vertical forms `︐︓︔`, the Greek question mark, the one-dot leader:
 * attack8 found `116﹐111﹐…` unread), and the ideographic full stops `。｡` (read as `.`, as `、`
 * is read as `,`).
 */
const SEPARATORS =
  "\\uff0c\\uff0e\\uff1a\\uff1b\\uff0d\\uff5c\\uff0f\\u00a0\\u2000-\\u200a\\u202f\\u205f\\u3000\\u3001\\ufe51\\uff64\\u3002\\uff61\\u037e\\u2024\\ufe10\\ufe13\\ufe14\\ufe50\\ufe52\\ufe54\\ufe55\\ufe63";
const FOLDED_SEPARATOR = new RegExp(`[0-9][${SEPARATORS}]`);
const SPACED_SEPARATOR = new RegExp(`[ \\t][${SEPARATORS}]`, "g");
/**
 * Whether a digit is followed by a character that folds to a list separator, with any spaces
 * or tabs between them: `116，111，…` is a list only once folded,
 * though its digits are ASCII, and so is `116 、111 、…` (`116 ,111`: attack8 found it unread
 * when the digit had to stand right before the separator). After a digit only: Chinese text is
 * full of `，`, `、` and `\u3000`, and a list has digits before each. Fixed-width patterns, the
 * spaces walked back in a loop: `[0-9][ \t]{0,8}[…]` backtracked at every digit before a space
 * and left V8's backtracking engine (redaction-regexp-engine.test.ts).
 */
function foldedSeparator(text: string): boolean {
  if (FOLDED_SEPARATOR.test(text)) return true;
  SPACED_SEPARATOR.lastIndex = 0;
  for (let match = SPACED_SEPARATOR.exec(text); match; match = SPACED_SEPARATOR.exec(text)) {
    let at = match.index - 1;
    // Linear in all: a walk stops at the previous separator, so no two walks share a space.
    while (at >= 0 && isSpaceOrTab(text.charCodeAt(at))) at--;
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

const isSpaceOrTab = (c: number) => c === 32 || c === 9;

/** Decoding steps after a spelled-out reading: two layers of character-level encoding. */
export const MAX_SPELLED_STEPS = 2;
