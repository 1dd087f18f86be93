/**
 * The compact view: whitespace and zero-width or formatting characters (every default-ignorable
 * code point and format character: U+200B–U+200F, U+2060–U+2064, U+FEFF, soft hyphen, bidi
 * controls, variation selectors, tag characters) dropped, and every other non-ASCII character
 * folded by Unicode compatibility (NFKC: full-width and styled letters become ASCII); UTF-8 read
 * one character per byte (what percent-decoding produces) is read as UTF-8 first. A text
 * rendered in full-width letters or with zero-width characters between its letters thus reads
 * as the credential it spells. Made like a decoding step (../view-builder.ts).
 *
 * Whitespace always makes a view: the compact view of ordinary text is the text without it.
 */
import { utf8CodeFits, utf8LeadLength } from "../byte-text";
import { PAUSE, runToEnd, SLICE_POSITIONS, type Sliced } from "../slices";
import { SequenceMap, type Origin } from "../sequence-map";
import { compose, ViewBuilder, type View } from "../view-builder";
import { sliceBudget, type SliceBudget } from "../windowed-search";

/**
 * Positions the compact and folded views have looked at so far (tests count them between
 * pauses, issue #40), characters folded through the lookup by string, and maps of the compact
 * view of ASCII text made.
 */
export const compactWork = { positions: 0, slowFolds: 0, mapBuilds: 0 };

/** An ASCII whitespace character (the class the lists view calls a space). */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/**
 * Characters that show nothing between letters: Unicode's default-ignorable code points (zero-width
 * characters, soft hyphen, bidi controls, variation selectors with their supplement U+E0100–E01EF,
 * tag characters U+E0000–E007F, Hangul fillers) and every other format character (`Cf`: U+FFF9–FFFB,
 * musical formatting U+1D173–1D17A, …). A list of ranges missed the tags and the supplement, so a
 * credential joined by them passed as plain text.
 */
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\p{Cf}]$/u;
const invisible = (code: number) => INVISIBLE.test(String.fromCodePoint(code));
// U+2800 (braille blank) is a symbol, not a space, but shows as one.
const UNICODE_SPACE = /[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u2800\u3000]/;

/** U+3001, what NFKC leaves of the ideographic commas (U+3001, U+FE51, U+FF64). */
const IDEOGRAPHIC_COMMA = "\u3001";
/** U+3002, what NFKC leaves of the ideographic full stops (U+3002, U+FF61). */
const IDEOGRAPHIC_FULL_STOP = "\u3002";

const folded = new Map<number, string>();
const foldedSpaced = new Map<number, string>();

/** A code point after compatibility folding, with invisible characters and spaces dropped. */
function fold(code: number): string {
  let out = folded.get(code);
  if (out === undefined) {
    const char = String.fromCodePoint(code);
    out = invisible(code) || UNICODE_SPACE.test(char) ? "" : char.normalize("NFKC");
    // Folding may itself produce a space (U+3000 is handled above; `¨` gives " ̈").
    out = out.replace(/\s/g, "");
    if (folded.size < 65_536) folded.set(code, out);
  }
  return out;
}

/**
 * {@link fold}, but a space stays one: a Unicode space becomes an ASCII space (the separator a
 * list reader knows), so folding keeps where one list item ends and the next begins. The
 * ideographic comma `、` (and the half-width and small ones NFKC turns into it) becomes `,`:
 * NFKC leaves it, yet it joins a list as the full-width comma does (attack7: `116、111、…`).
 * The ideographic full stop `。` (and the half-width one) becomes `.` for the same reason, as the
 * full-width full stop does (attack8: `116。111。…`).
 */
function foldKeepingSpaces(code: number): string {
  let out = foldedSpaced.get(code);
  if (out === undefined) {
    out = UNICODE_SPACE.test(String.fromCodePoint(code)) ? " " : fold(code);
    if (out === IDEOGRAPHIC_COMMA) out = ",";
    else if (out === IDEOGRAPHIC_FULL_STOP) out = ".";
    if (foldedSpaced.size < 65_536) foldedSpaced.set(code, out);
  }
  return out;
}

/**
 * Whether compaction and folding leave a character as it is (neither drop nor fold it): what
 * ../decoding/changed-segments.ts needs of a character no reading may touch.
 * @param code - a code point
 */
export function keptByCompaction(code: number): boolean {
  const char = String.fromCodePoint(code);
  return fold(code) === char && foldKeepingSpaces(code) === char;
}

/** Per UTF-16 code unit: 0 not yet known, 1 kept by compaction as it is, 2 dropped or folded. */
const KEPT = new Uint8Array(0x10000);

/** {@link keptByCompaction} of a code unit that is no surrogate, remembered. */
function keptUnit(code: number): boolean {
  let state = KEPT[code]!;
  if (state === 0) {
    state = keptByCompaction(code) ? 1 : 2;
    KEPT[code] = state;
  }
  return state === 1;
}

/** Per UTF-16 code unit: 0 not yet known, 1 {@link plainKept}, 2 not. */
const PLAIN_KEPT = new Uint8Array(0x10000);

/**
 * Whether compaction keeps a code unit as it is wherever it stands: it starts no UTF-8 sequence
 * (no lead byte read one character per byte), is no surrogate (no half of a tag character) and
 * neither drops nor folds it ({@link keptUnit}). One table read instead of the checks each makes
 * (most of a binary body's characters beyond ASCII are such; issue #40).
 */
function plainKept(code: number): boolean {
  let state = PLAIN_KEPT[code]!;
  if (state === 0) {
    state =
      utf8LeadLength(code) === 0 && (code < 0xd800 || code > 0xdfff) && keptUnit(code) ? 1 : 2;
    PLAIN_KEPT[code] = state;
  }
  return state === 1;
}

/**
 * Per UTF-16 code unit, for {@link compactTurn} without and with spaces kept: 0 not yet known,
 * else 1 + the one code unit it folds to, for a unit that starts no UTF-8 sequence, is no
 * surrogate and folds to one other unit (`ª` → `a`, full-width letters); -2 for such a unit
 * that is dropped (a Unicode space, a zero-width character); -1 for any other.
 * Such a unit is replaced where it stands by that code (the builder's `replaceCode`, the
 * string `replace` made the same view and map): a flood of escapes decodes to `ª` by the
 * million, and looking each up by string and replacing it by a string was a tenth of its
 * redaction (issue #40).
 */
const SINGLE_FOLD = [new Int32Array(0x10000), new Int32Array(0x10000)];

/**
 * UTF-8 read one character per byte at `at` (what percent-decoding produces): [code point,
 * length], or undefined when no well-formed sequence starts there.
 * @param text - the text
 * @param at - where the sequence would start
 */
export function utf8At(text: string, at: number): [number, number] | undefined {
  const lead = text.charCodeAt(at);
  const length = utf8LeadLength(lead);
  if (length === 0) return undefined;
  let code = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) {
    const c = text.charCodeAt(at + k);
    if (!(c >= 0x80 && c <= 0xbf)) return undefined;
    code = (code << 6) | (c & 0x3f);
  }
  return utf8CodeFits(code, length) ? [code, length] : undefined;
}

/**
 * The view with whitespace and invisible characters dropped and other characters folded (see
 * the file header), or undefined when that changes nothing.
 * @param view - a text and its map to the original
 * @param seen - what the pass met ({@link Seen}: a tag character, a character folded to ASCII;
 *   this pass looks at every character beyond ASCII anyway)
 */
export function compactView(view: View, seen?: Seen): View | undefined {
  return runToEnd(compactViewInSlices(view, seen));
}

/**
 * The folded view: {@link compactView}'s folding and invisible characters dropped, but every
 * whitespace run kept (a Unicode space read as an ASCII one), or undefined when that changes
 * nothing. What a list spelled in folded characters is read in: compaction glues a word before
 * the list onto its first number (`x １１６,１１１` reads `x116,111`), and numbers joined only by
 * spaces into one, so the list lost its first item or all of them.
 * @param view - a text and its map to the original
 */
export function* foldedViewInSlices(view: View): Sliced<View | undefined> {
  if (!NON_ASCII.test(view.text)) return undefined;
  return yield* compactViewInSlices(view, undefined, true);
}

/**
 * {@link compactView} as a sliced pass (../slices.ts): a text of a million folded characters (a
 * decoded flood of `%AA`) is a million replacements.
 * @param view - a text and its map to the original
 * @param seen - as for {@link compactView}
 * @param keepSpaces - keep whitespace (see {@link foldedViewInSlices}); the caller checked the
 *   text holds a character beyond ASCII
 */
export function* compactViewInSlices(
  view: View,
  seen?: Seen,
  keepSpaces = false,
): Sliced<View | undefined> {
  const { text } = view;
  if (!keepSpaces && !NON_ASCII.test(text)) return yield* asciiCompactView(view);
  const builder = new ViewBuilder(text);
  const budget = sliceBudget();
  for (let i = 0; i < text.length;) {
    i = compactTurn(text, i, builder, budget, keepSpaces, seen);
    if (budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()), changed: builder.map };
}

const NON_ASCII = /[^\0-\x7f]/;

/**
 * One turn of {@link compactViewInSlices}: compacts from `from` until the text ends or the
 * budget is spent (a position each), and answers where it stopped. A plain function, not the
 * generator's own loop, with {@link plainKept} first (issue #40: the compactions of a binary
 * body's 4 MB views were a fifth of its redaction): the compact and folded views of 1 MB of
 * random bytes took 13–22 % less time, their texts and maps unchanged.
 */
function compactTurn(
  text: string,
  from: number,
  builder: ViewBuilder,
  budget: SliceBudget,
  keepSpaces: boolean,
  seen?: Seen,
): number {
  const n = text.length;
  const singles = SINGLE_FOLD[keepSpaces ? 1 : 0]!;
  let left = budget.left;
  let i = from;
  for (; i < n && left > 0; i++) {
    left--;
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (keepSpaces || !isSpace(c)) continue;
      let end = i + 1;
      while (end < n && isSpace(text.charCodeAt(end))) end++;
      builder.replace(i, end - i, "");
      i = end - 1;
      continue;
    }
    // Most characters beyond ASCII (CJK, accented letters and symbols of binary bytes) are kept
    // as they are: a table says so without a lookup by string (a third of a CJK body's
    // compaction), before the checks below; so is a lead byte that no continuation byte follows
    // (neither can start a tag character: that needs a surrogate, or `\xf3\xa0`).
    if (plainKept(c)) continue;
    const single = singles[c]!;
    if (single > 0) {
      builder.replaceCode(i, 1, single - 1);
      if (seen && c > 0xff && single - 1 < 0x80) seen.folded = true;
      continue;
    }
    if (single === -2) {
      builder.replace(i, 1, "");
      continue;
    }
    if (c >= 0xc2 && c <= 0xf4) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0x80 && next <= 0xbf) && keptUnit(c)) continue;
    }
    if (seen && (c === 0xdb40 || (c === 0xf3 && text.charCodeAt(i + 1) === 0xa0))) seen.tags = true;
    const bytes = c <= 0xf4 ? utf8At(text, i) : undefined;
    // A byte that starts no UTF-8 sequence and folds to itself: kept, without the fold's lookup
    // by string.
    if (!bytes && (c < 0xd800 || c > 0xdfff) && keptUnit(c)) continue;
    const code = bytes ? bytes[0] : text.codePointAt(i)!;
    const length = bytes ? bytes[1] : code > 0xffff ? 2 : 1;
    const out = keepSpaces ? foldKeepingSpaces(code) : fold(code);
    compactWork.slowFolds++;
    // Cached only where this path is the whole story: no UTF-8 sequence can start at `c`
    // (never read as bytes), no surrogate (never half of a tag or a pair), one unit in and out.
    if (
      single === 0 &&
      !bytes &&
      length === 1 &&
      utf8LeadLength(c) === 0 &&
      (c < 0xd800 || c > 0xdfff)
    )
      singles[c] =
        out.length === 1 && out.charCodeAt(0) !== c ? out.charCodeAt(0) + 1 : out === "" ? -2 : -1;
    const same =
      !bytes &&
      (length === 1
        ? out.length === 1 && out.charCodeAt(0) === c
        : out.length === 2 && out.codePointAt(0) === code);
    if (!same) builder.replace(i, length, out);
    if (seen && !same && code > 0xff && out.charCodeAt(0) < 0x80) seen.folded = true;
    i += length - 1;
  }
  compactWork.positions += i - from;
  budget.left = left;
  return i;
}

/**
 * What a compaction met, for its caller: a tag character (then the tag view is worth making),
 * a character beyond Latin-1 folded to ASCII (full-width, styled: then the steps beside folded
 * characters are, ../decoding/beside-folded-steps.ts). Latin-1's `ª º ¹ ² ³` alone do not count:
 * bodies of percent sequences fold them by the hundred thousand beside a `%` (+10-19 % of the
 * heavy rows' CPU), and a copy spelled in them alone is no full-width copy. Both looks ride on
 * the pass over every such character.
 */
export interface Seen {
  tags: boolean;
  folded?: boolean;
}

/**
 * Sequences for a view whose step produced no character: a whitespace run removed from ASCII text
 * decodes to nothing, so no step or list reading is owed to what it produced.
 */
const NOTHING_PRODUCED = new SequenceMap();

/** An ASCII whitespace character (what ASCII compaction drops). */
const ASCII_SPACE = /[\t-\r ]/;

/**
 * {@link compactView} of ASCII text: its whitespace removed in one pass, in slices (a body can
 * be megabytes of words: 4 MB of `abc ` was made between two pauses), the map to the original
 * built only when a copy is found in the view. Building the view and its map run by run cost a
 * fifth of an ordinary JSON body's redaction, and the map 6 bytes per whitespace run.
 */
function* asciiCompactView(view: View): Sliced<View | undefined> {
  const { text } = view;
  // Nothing to drop: no buffer at all (a body of escapes has no whitespace, and this was 4 MB of
  // garbage per 4 MB view: issue #40).
  const first = text.search(ASCII_SPACE);
  if (first < 0) return undefined;
  // What is kept of each slice goes into one buffer of a slice's size, read back by the
  // engine's decoder (ASCII: a byte a character, the string byte-text.ts's `byteView` made of the whole), and
  // the pieces are joined: the engine's own replace made a part per whitespace run, and a body
  // of a million runs spent half its redaction collecting them.
  const buffer = new Uint8Array(SLICE_POSITIONS);
  let compact = text.slice(0, first);
  let length = first;
  for (let i = first; i < text.length;) {
    const [from, stop] = [i, Math.min(text.length, i + SLICE_POSITIONS)];
    let kept = 0;
    for (; i < stop; i++) {
      const c = text.charCodeAt(i);
      if (c !== 32 && (c < 9 || c > 13)) buffer[kept++] = c;
    }
    compact += asciiDecoder.decode(buffer.subarray(0, kept));
    length += kept;
    compactWork.positions += stop - from;
    if (i < text.length) yield PAUSE;
  }
  if (length === text.length) return undefined;
  // Flattened once (the searches read it character by character).
  /\0/.test(compact);
  let local: Origin | undefined;
  const origin: Origin = (i, end) => {
    if (!local) {
      // Every whitespace run, in one loop over codes: a match object per run made this a
      // third of a body of words' redaction (40 ms for 4 MB of `abc `, 7 as a loop) in one go
      // when a copy is found in the view.
      const map = new SequenceMap();
      compactWork.mapBuilds++;
      let kept = 0;
      let last = 0;
      for (let at = first; at < text.length; at++) {
        if (!isSpace(text.charCodeAt(at))) continue;
        let past = at + 1;
        while (past < text.length && isSpace(text.charCodeAt(past))) past++;
        kept += at - last;
        map.add(kept, 0, past - at);
        last = past;
        at = past;
      }
      local = map.origin();
    }
    return local(i, end);
  };
  return { text: compact, origin: compose(view.origin, origin), changed: NOTHING_PRODUCED };
}

const asciiDecoder = new TextDecoder();
