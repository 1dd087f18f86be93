/**
 * Decoded views of a text: the same text with one layer of character-level encoding undone, and
 * for every character of the view where it came from in the original, so a secret found in a
 * view is cut out of the original exactly where its encoded form was.
 *
 * One decoding step undoes, left to right in one pass, every sequence of:
 * - percent-encoding: `%XX` (a byte, one character per byte) and `%uXXXX`;
 * - HTML/XML character references: `&#97;`, `&#x61;` (the `;` optional, as HTML reads them) and
 *   the named references for ASCII punctuation (`&sol;`, `&colon;`, `&period;`, …);
 * - JavaScript, JSON and CSS escapes: `\xHH`, `\uHHHH`, `\u{H…}`, CSS `\H…` (1–6 hex digits and
 *   one optional space), and `\` before any other character (`\n`, `\/`, `\"`, `\-`);
 * - quoted-printable: `=XX` and soft line breaks (`=` at the end of a line).
 * Steps repeat on their own output (percent-encoded twice, a character reference inside a
 * percent-encoding), so compositions of character layers are undone too. A separate view drops
 * NULs: text with NULs between its characters is UTF-16 or UTF-32 read one byte at a time.
 *
 * Spelled-out readings (../spellings/spelling-views.ts) are made of the text, of its NUL-free view and of
 * every decoded view, and decoded again where they produced a sequence's start.
 *
 * Does not do: JavaScript's legacy octal escapes (`\141`: CSS hex here; ../spellings/octal-view.ts reads
 * them as octal in a view of its own), `+` as a space
 * (a form-encoded secret with a space is matched as a literal form instead), MIME encoded words.
 */
import { dumpBytesView, dumpTextView } from "../spellings/dump-views";
import {
  compactViewInSlices,
  listsViewInSlices,
  rot13View,
  tagView,
} from "../spellings/spelling-views";
import { notationViews } from "../spellings/notation-views";
import { PAUSE, runToEnd, SLICE_POSITIONS, type Pause, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";

export type { Origin } from "../view-builder";

/** The longest sequence a step decodes (`&DiacriticalGrave;`). */
const LONGEST_SEQUENCE = 18;

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

/** The longest run of at most `max` digits (hex or decimal) at `at`: [value, length]. */
function digitsAt(text: string, at: number, max: number, radix: 10 | 16): [number, number] {
  let [value, length] = [0, 0];
  while (length < max && at + length < text.length) {
    const c = text.charCodeAt(at + length);
    const digit = radix === 16 ? hexValue(c) : c >= 48 && c <= 57 ? c - 48 : -1;
    if (digit < 0) break;
    value = value * radix + digit;
    length++;
  }
  return [value, length];
}

const fromCode = (code: number) => (code <= 0x10ffff ? String.fromCodePoint(code) : undefined);

/**
 * A decoded sequence: what it decodes to, its length, and its family when it read digits (0 for
 * `\n`, `&sol;`, a soft line break: sequences that cannot swallow a secret's characters).
 */
type Sequence = [decoded: string, length: number, digitFamily: number];

/** The sequence starting at `at` (a lead character) in one of `families`. */
function sequenceAt(text: string, at: number, families: number): Sequence | undefined {
  const lead = text[at];
  const next = text.charCodeAt(at + 1);
  if (lead === "%" && families & PERCENT) {
    if (next === 117 || next === 85) {
      const unit = hexAt(text, at + 2, 4);
      if (unit >= 0) return [String.fromCharCode(unit), 6, PERCENT];
    }
    const byte = hexAt(text, at + 1, 2);
    return byte >= 0 ? [String.fromCharCode(byte), 3, PERCENT] : undefined;
  }
  if (lead === "&" && families & CHARACTER_REFERENCE) {
    if (next === 35) {
      const hex = text.charCodeAt(at + 2) === 120 || text.charCodeAt(at + 2) === 88;
      const [code, length] = hex ? digitsAt(text, at + 3, 6, 16) : digitsAt(text, at + 2, 7, 10);
      if (length === 0) return undefined;
      const end = at + (hex ? 3 : 2) + length;
      const decoded = fromCode(code);
      return decoded === undefined
        ? undefined
        : [decoded, end - at + (text[end] === ";" ? 1 : 0), CHARACTER_REFERENCE];
    }
    // Names are at most 16 letters: look no further (an indexOf to the end is quadratic).
    const semi = text.slice(at + 1, at + 18).indexOf(";");
    if (semi < 0) return undefined;
    const name = text.slice(at + 1, at + 1 + semi);
    return Object.hasOwn(NAMED, name) ? [NAMED[name]!, semi + 2, 0] : undefined;
  }
  if (lead === "\\" && at + 1 < text.length) {
    if (families & SCRIPT_ESCAPE) {
      if (next === 120) {
        const byte = hexAt(text, at + 2, 2);
        if (byte >= 0) return [String.fromCharCode(byte), 4, SCRIPT_ESCAPE];
      }
      if (next === 117 && text[at + 2] === "{") {
        const [code, length] = digitsAt(text, at + 3, 6, 16);
        const decoded = length > 0 && text[at + 3 + length] === "}" ? fromCode(code) : undefined;
        if (decoded !== undefined) return [decoded, length + 4, SCRIPT_ESCAPE];
      }
      if (next === 117) {
        const unit = hexAt(text, at + 2, 4);
        if (unit >= 0) return [String.fromCharCode(unit), 6, SCRIPT_ESCAPE];
      }
    }
    if (hexValue(next) >= 0) {
      if (!(families & CSS_ESCAPE)) return undefined;
      const [code, length] = digitsAt(text, at + 1, 6, 16);
      const decoded = fromCode(code);
      if (decoded === undefined) return undefined;
      const space = /[ \t\n\r\f]/.test(text[at + 1 + length] ?? "") ? 1 : 0;
      return [decoded, 1 + length + space, CSS_ESCAPE];
    }
    if (!(families & (SCRIPT_ESCAPE | CSS_ESCAPE))) return undefined;
    const single = text[at + 1]!;
    return families & SCRIPT_ESCAPE
      ? [Object.hasOwn(SINGLE, single) ? SINGLE[single]! : single, 2, 0]
      : [single, 2, 0];
  }
  if (lead === "=" && families & QUOTED_PRINTABLE) {
    const byte = hexAt(text, at + 1, 2);
    if (byte >= 0) return [String.fromCharCode(byte), 3, QUOTED_PRINTABLE];
    if (text[at + 1] === "\n") return ["", 2, 0];
    if (text[at + 1] === "\r" && text[at + 2] === "\n") return ["", 3, 0];
  }
  return undefined;
}

/**
 * Positions tried by {@link decodeStep} since the isolate started: a count that does not depend
 * on the machine, so a test can bound the work per character (targets in time live in the
 * benchmark, bench/redaction.mjs --heavy).
 */
export const decodeWork = { positions: 0 };

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
 */
function* decodeStepInSlices(view: View, families: number): Sliced<View | undefined> {
  const { text, changed } = view;
  let budget = SLICE_POSITIONS;
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
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    for (let i = first; i < end; i++) {
      if (--budget <= 0) {
        budget = SLICE_POSITIONS;
        yield PAUSE;
      }
      const c = text.charCodeAt(i);
      // % & \ =
      if (c !== 37 && c !== 38 && c !== 92 && c !== 61) continue;
      const found = sequenceAt(text, i, families);
      if (!found) continue;
      const [decoded, length, family] = found;
      if (changed && i + length <= from) continue;
      decodedFamilies |= family;
      builder.replace(i, length, decoded);
      i += length - 1;
    }
    scanned = Math.max(scanned, end);
  }
  const decoded = builder.finish();
  if (decoded === undefined) return undefined;
  return {
    text: decoded,
    origin: compose(view.origin, builder.map.origin()),
    changed: builder.map,
    digitFamilies: decodedFamilies,
  };
}

/**
 * The view without NULs, or undefined when there are none.
 * @param view - a text and its map to the original
 */
export function withoutNuls(view: View): View | undefined {
  const { text } = view;
  if (!text.includes("\0")) return undefined;
  const builder = new ViewBuilder(text);
  for (let i = text.indexOf("\0"); i >= 0; i = text.indexOf("\0", i)) {
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === 0) end++;
    // A run of NULs decodes to nothing; trailing NULs of a UTF-16 or UTF-32 character thus
    // belong to the range of the character before them.
    builder.replace(i, end - i, "");
    i = end;
  }
  return { text: builder.finish()!, origin: compose(view.origin, builder.map.origin()) };
}

/** How many decoding steps are tried in a row: three layers of character-level encoding. */
export const MAX_STEPS = 3;

/** Steps of the given families from a view, each on the last one's output. */
function* steps(start: View, families: number, max = MAX_STEPS): Generator<View | Pause> {
  let view: View | undefined = start;
  for (let step = 0; step < max && view; step++) {
    view = yield* decodeStepInSlices(view, families);
    if (view) yield view;
  }
}

/** At most how many characters of a copy a sequence placed before it can swallow (`&#1234567`). */
export const MAX_SWALLOWED = 7;

/**
 * The text and every view worth searching, one at a time: the text, its NUL-free view, and from
 * each, up to {@link MAX_STEPS} steps decoding every family. Views are made as they are asked
 * for, so only the one being searched and the maps behind it are held at once.
 *
 * A sequence that reads digits can swallow the first characters of a copy that another family
 * encodes (`=de&#97;dbeef`: quoted-printable takes `=de`, and the view shows `Þadbeef`). Such a
 * view shows the rest of the copy right after what the swallowing sequence decoded to; when
 * `mayHideCopy` finds the rest of a form there, steps decoding every family but the one whose
 * digits were read are added too. Ordinary text costs no extra view.
 * @param text - what the program would receive
 * @param mayHideCopy - whether some form of a secret, less its first characters, follows a
 *   decoded sequence of the view
 */
export function* decodedViews(
  text: string,
  mayHideCopy: (view: View) => Sliced<boolean>,
): Generator<View> {
  for (const view of decodedViewsInSlices(text, mayHideCopy)) if (view !== PAUSE) yield view;
}

/**
 * {@link decodedViews} with the pauses of its decoding steps (../slices.ts) between the views: a
 * caller that gives the thread away at each {@link PAUSE} holds it for a bounded slice only.
 * @param text - what the program would receive
 * @param mayHideCopy - as for {@link decodedViews}
 */
export function* decodedViewsInSlices(
  text: string,
  mayHideCopy: (view: View) => Sliced<boolean>,
): Generator<View | Pause> {
  const base: View = { text, origin: null };
  yield base;
  yield* spelledViews(base);
  const dump = dumpTextView(base);
  if (dump) yield dump;
  const dumped = dumpBytesView(base);
  if (dumped) {
    yield dumped;
    yield* steps(dumped, ALL_FAMILIES, MAX_SPELLED_STEPS);
  }
  // ROT13 over a character-level encoding: decoded once turned back.
  const rotated = rot13View(base);
  if (rotated) yield* steps(rotated, ALL_FAMILIES);
  const nulFree = withoutNuls(base);
  if (nulFree) {
    yield nulFree;
    yield* spelledViews(nulFree);
  }
  for (const start of nulFree ? [base, nulFree] : [base]) {
    let digits: number | undefined;
    let suspect = false;
    for (const view of steps(start, ALL_FAMILIES)) {
      if (view === PAUSE) {
        yield view;
        continue;
      }
      yield* spelledViews(view);
      // The families whose digits the first step read: those that can have swallowed a copy.
      digits ??= view.digitFamilies ?? 0;
      if (!suspect && digits !== 0) suspect = yield* mayHideCopy(view);
      yield view;
    }
    if (!suspect || !digits) continue;
    for (const family of FAMILIES) if (digits & family) yield* steps(start, ALL_FAMILIES & ~family);
  }
}

/**
 * The spelled-out readings of a view (../spellings/spelling-views.ts): its lists read as characters (both
 * ways when two-digit numbers could be hex or decimal), then compacted and folded, and up to
 * {@link MAX_SPELLED_STEPS} decoding steps on what those produced (char codes of a
 * percent-encoding, full-width `％７４`).
 *
 * A decoded view is read again only for what its step produced: lists when the step produced a
 * digit or a separator, compaction when it produced whitespace or a character beyond ASCII, steps
 * when a reading produced the start of a sequence. An ordinary JSON body (its `\n` and `\"`
 * escapes decoded) costs one compacted view of its decoded view, no more.
 */
function* spelledViews(view: View): Generator<View | Pause> {
  for (const notation of notationViews(view)) yield* afterReading(notation);
  const decoded = view.changed !== undefined;
  // One pass for both classes (a step of a flood of escapes produced a million characters).
  const classes = decoded ? yield* producedClasses(view) : COMPACTED_BIT | LIST_BIT;
  const compacting = (classes & COMPACTED_BIT) !== 0;
  // Whether compaction met a tag character: only then is the tag view made.
  const seen = { tags: false };
  let listed = false;
  if (classes & LIST_BIT) {
    // One reading at a time: the second (two-digit numbers read as hex) is made only after the
    // first and what comes of it were searched, so the two are never held at once.
    const lists = yield* listsViewInSlices(view);
    let reading = lists.view;
    if (reading) {
      listed = true;
      yield* readingViews(reading, compacting, seen);
    }
    reading = undefined;
    lists.view = undefined;
    if (lists.ambiguous) {
      reading = (yield* listsViewInSlices(view, true, lists)).view;
      if (reading) yield* readingViews(reading, compacting, seen);
    }
  }
  if (!compacting) return;
  // A text with lists was compacted with its lists read; one without, as it is.
  const compact = listed ? undefined : yield* compactViewInSlices(view, seen);
  if (compact) {
    yield* afterReading(compact);
    // A list spelled in folded characters (full-width digits `１１６，１１１`) reads as one only
    // after folding; only a text with such characters can hold one, so others cost nothing.
    if (FOLDED_DIGITS.test(view.text)) {
      const relisted = (yield* listsViewInSlices(compact)).view;
      if (relisted) yield relisted;
    }
  }
  const tags = seen.tags ? tagView(view) : undefined;
  if (tags) yield* afterReading(tags);
}

/** A list reading, the decoding steps on what it produced, and its compact view. */
function* readingViews(
  reading: View,
  compacting: boolean,
  seen: { tags: boolean },
): Generator<View | Pause> {
  yield* afterReading(reading);
  if (!compacting) return;
  const compact = yield* compactViewInSlices(reading, seen);
  if (compact) yield* afterReading(compact);
}

/** A reading, then up to {@link MAX_SPELLED_STEPS} decoding steps when it produced a sequence's start. */
function* afterReading(reading: View): Generator<View | Pause> {
  yield reading;
  if (yield* produced(reading, SEQUENCE_LEAD))
    yield* steps(reading, ALL_FAMILIES, MAX_SPELLED_STEPS);
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
  let classes = 0;
  let budget = SLICE_POSITIONS;
  for (let t = 0; t < changed.count; t++) {
    const start = changed.outStart(t);
    const end = start + changed.outLength(t);
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (COMPACTED(c)) classes |= COMPACTED_BIT;
      else if (LIST_CHARACTER(c)) classes |= LIST_BIT;
    }
    if (classes === (COMPACTED_BIT | LIST_BIT)) return classes;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return classes;
}

/** Digits, separators and quotes: what a list is made of. */
const LIST_CHARACTER = (c: number) =>
  (c >= 48 && c <= 57) || c === 44 || c === 46 || c === 58 || c === 59 || c === 39;
/** Whitespace or anything beyond ASCII: what compaction drops or folds. */
const COMPACTED = (c: number) => c === 32 || (c >= 9 && c <= 13) || c > 0x7f;
/** `% & \ =`: what starts a character-level sequence. */
const SEQUENCE_LEAD = (c: number) => c === 37 || c === 38 || c === 92 || c === 61;

/** Characters NFKC folds to ASCII digits or hex letters: full-width and mathematical digits. */
const FOLDED_DIGITS = /[\uff10-\uff19\uff21-\uff26\uff41-\uff46\u{1d7ce}-\u{1d7ff}]/u;

/** Decoding steps after a spelled-out reading: two layers of character-level encoding. */
const MAX_SPELLED_STEPS = 2;

const FAMILIES = [PERCENT, CHARACTER_REFERENCE, SCRIPT_ESCAPE, CSS_ESCAPE, QUOTED_PRINTABLE];

/**
 * Where a range of a view lies in the original text.
 * @param view - the view searched
 * @param start - start of the match in the view
 * @param end - end of the match in the view
 */
export function originalRange(view: View, start: number, end: number): [number, number] {
  return view.origin ? [view.origin(start, false), view.origin(end, true)] : [start, end];
}
