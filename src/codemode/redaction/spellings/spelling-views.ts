/**
 * Views that undo the ways a text can be spelled out rather than encoded: an API that echoes
 * raw header bytes (a Node `Buffer` as JSON, a hex dump), a debugging page that lists character
 * codes, a text rendered in full-width letters or with zero-width characters between its
 * letters, and the same spellings a program could give a credential it recovered. Each view is
 * made like a decoding step (../view-builder.ts), so a secret found in it is cut out of the
 * original where its spelled-out form was, and the search then treats it like any other view
 * (../decoding/decoded-view.ts composes them with the character-level decodings).
 *
 * - {@link listsView}: runs of at least {@link MIN_ITEMS} numbers or one-character strings read as
 *   the characters they stand for: decimal codes (`116,111,107`, `116.111`, `116 111`, a JSON
 *   array, a Node Buffer's `data`), hex bytes with a separator (`74 6f`, `74:6f`, `0x74,0x6f`,
 *   the hex columns of `hexdump -C`, whose offsets and text column count as separators; `0x`
 *   bytes also back to back), binary (`01110100 01101111` or one run of 8-bit bytes; 6 or 7 bits
 *   standing alone, as a code without its leading zeros; `0b`-prefixed, 1 to 8 bits), any of
 *   these inside quotes (`["116","111"]`), and JSON arrays of characters (`["t","o"]`). A
 *   separator is whitespace around at most one of `, . : ; - | /`.
 * - {@link compactView}: whitespace and zero-width or formatting characters (every default-ignorable
 *   code point and format character: U+200B–U+200F, U+2060–U+2064, U+FEFF, soft hyphen, bidi
 *   controls, variation selectors, tag characters) dropped, and every other non-ASCII
 *   character folded by Unicode compatibility (NFKC: full-width and styled letters become
 *   ASCII); UTF-8 read one character per byte (what percent-decoding produces) is read as UTF-8
 *   first.
 * - {@link tagView}: Unicode tag characters read as the ASCII they mirror (a copy written in
 *   them), everything else dropped.
 * - {@link rot13View}: the text in ROT13 when it holds a sequence of a character-level encoding
 *   written in ROT13 (`%6S`), for the decoding steps to undo.
 *
 * Dumps (`hexdump -C`, `xxd`, `od`) are read by ./dump-views.ts.
 *
 * Ordinary text is left as it was wherever no such run exists; a view is made only when one
 * does (whitespace always does: the compact view of ordinary text is the text without it).
 */
import { byteView } from "../search/secret-forms";
import { PAUSE, runToEnd, SLICE_POSITIONS, type Pause, type Sliced } from "../slices";
import { compose, SequenceMap, ViewBuilder, type Origin, type View } from "../view-builder";

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

/** The separator's length at `at` (0 when there is none). */
function separatorAt(text: string, at: number, kind: Kind): number {
  let end = at;
  while (isSpace(text.charCodeAt(end))) end++;
  const c = text.charCodeAt(end);
  const dump = kind === "hex" && c === 124 && DUMP_LINE_END.test(text.slice(end, end + 64));
  // `-` is .NET's `BitConverter.ToString` (`74-6F`); `|` and `/` join lists as often.
  if (
    !dump &&
    (c === 44 || c === 46 || c === 58 || c === 59 || c === 45 || c === 124 || c === 47)
  ) {
    end++;
    while (isSpace(text.charCodeAt(end))) end++;
  } else if (kind === "hex" && c === 124) {
    const tail = DUMP_LINE_END.exec(text.slice(end, end + 64));
    if (tail) end += tail[0].length;
  }
  return end - at;
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
const isSeparator = (c: number) =>
  isSpace(c) || c === 44 || c === 46 || c === 58 || c === 59 || c === 45 || c === 124 || c === 47;

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

const folded = new Map<number, string>();

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

/** UTF-8 read one character per byte at `at`: [code point, length], or undefined. */
function utf8At(text: string, at: number): [number, number] | undefined {
  const lead = text.charCodeAt(at);
  const length =
    lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
        ? 3
        : lead >= 0xf0 && lead <= 0xf4
          ? 4
          : 0;
  if (length === 0) return undefined;
  let code = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) {
    const c = text.charCodeAt(at + k);
    if (!(c >= 0x80 && c <= 0xbf)) return undefined;
    code = (code << 6) | (c & 0x3f);
  }
  const min = [0, 0, 0x80, 0x800, 0x10000][length]!;
  return code >= min && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
    ? [code, length]
    : undefined;
}

/**
 * The view with whitespace and invisible characters dropped and other characters folded (see
 * the file header), or undefined when that changes nothing.
 * @param view - a text and its map to the original
 * @param seen - set to true when the text holds a tag character (then {@link tagView} is worth
 *   making: this pass looks at every character beyond ASCII anyway)
 */
export function compactView(view: View, seen?: { tags: boolean }): View | undefined {
  return runToEnd(compactViewInSlices(view, seen));
}

/**
 * {@link compactView} as a sliced pass (../slices.ts): a text of a million folded characters (a
 * decoded flood of `%AA`) is a million replacements.
 * @param view - a text and its map to the original
 * @param seen - as for {@link compactView}
 */
export function* compactViewInSlices(
  view: View,
  seen?: { tags: boolean },
): Sliced<View | undefined> {
  const { text } = view;
  if (!NON_ASCII.test(text)) return asciiCompactView(view);
  const builder = new ViewBuilder(text);
  let budget = SLICE_POSITIONS;
  for (let i = 0; i < text.length; i++) {
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (!isSpace(c)) continue;
      let end = i + 1;
      while (end < text.length && isSpace(text.charCodeAt(end))) end++;
      builder.replace(i, end - i, "");
      i = end - 1;
      continue;
    }
    if (seen && (c === 0xdb40 || (c === 0xf3 && text.charCodeAt(i + 1) === 0xa0))) seen.tags = true;
    const bytes = c <= 0xf4 ? utf8At(text, i) : undefined;
    const code = bytes ? bytes[0] : text.codePointAt(i)!;
    const length = bytes ? bytes[1] : code > 0xffff ? 2 : 1;
    const out = fold(code);
    const same =
      !bytes &&
      (length === 1
        ? out.length === 1 && out.charCodeAt(0) === c
        : out.length === 2 && out.codePointAt(0) === code);
    if (!same) builder.replace(i, length, out);
    i += length - 1;
  }
  const decoded = builder.finish();
  return decoded === undefined
    ? undefined
    : { text: decoded, origin: compose(view.origin, builder.map.origin()), changed: builder.map };
}

/** A tag character (U+E0020–U+E007E) at `at`, as UTF-16 or as UTF-8 read one character per byte. */
function tagAt(text: string, at: number): [string, number] | undefined {
  const c = text.charCodeAt(at);
  if (c === 0xdb40) {
    const low = text.charCodeAt(at + 1);
    return low >= 0xdc20 && low <= 0xdc7e ? [String.fromCharCode(low - 0xdc00), 2] : undefined;
  }
  if (c !== 0xf3 || text.charCodeAt(at + 1) !== 0xa0) return undefined;
  const [b2, b3] = [text.charCodeAt(at + 2), text.charCodeAt(at + 3)];
  if ((b2 !== 0x80 && b2 !== 0x81) || b3 < 0x80 || b3 > 0xbf) return undefined;
  const code = ((b2 & 0x3f) << 6) | (b3 & 0x3f);
  return code >= 0x20 && code <= 0x7e ? [String.fromCharCode(code), 4] : undefined;
}

/**
 * The view of a text's Unicode tag characters read as the ASCII they mirror (U+E0074 is `t`),
 * everything else dropped, or undefined when it has fewer than {@link MIN_ITEMS}. Tags are
 * invisible, so the compact view drops them (a copy joined by them reads as one); a copy written
 * in them ("ASCII smuggling") is read here, also between visible characters.
 * @param view - a text and its map to the original
 */
export function tagView(view: View): View | undefined {
  const { text } = view;
  const builder = new ViewBuilder(text);
  let tags = 0;
  let other = 0;
  for (let i = 0; i < text.length;) {
    const tag = tagAt(text, i);
    if (!tag) {
      i++;
      continue;
    }
    if (i > other) builder.replace(other, i - other, "");
    builder.replace(i, tag[1], tag[0]);
    tags++;
    i += tag[1];
    other = i;
  }
  if (tags < MIN_ITEMS) return undefined;
  if (text.length > other) builder.replace(other, text.length - other, "");
  return {
    text: builder.finish()!,
    origin: compose(view.origin, builder.map.origin()),
    changed: builder.map,
  };
}

/**
 * A sequence of a character-level encoding written in ROT13 (`%6F` → `%6S`, `\x74` → `\k74`,
 * `&#x74;` → `&#k74;`, `=6F` → `=6S`): digits and hex letters past `m`, which no encoding has.
 */
const ROT13_SEQUENCE =
  /%(?:[0-9][n-sN-S]|[n-sN-S][0-9n-sN-S])|=(?:[0-9][N-S]|[N-S][0-9N-S])|\\[kKhH][0-9n-sN-S]{2}|&#[kK][0-9n-sN-S]/;

/**
 * The view of a text in ROT13 (same length, so the same map), or undefined when it holds no
 * sequence of a character-level encoding written in ROT13: the decoding steps run on it then
 * undo a ROT13 applied over a percent-encoding or escapes (ROT13 of the secret itself is a
 * literal form, ../search/secret-forms.ts).
 * @param view - a text and its map to the original
 */
export function rot13View(view: View): View | undefined {
  const { text } = view;
  if (!ROT13_SEQUENCE.test(text)) return undefined;
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lower = c | 32;
    out[i] = lower >= 97 && lower <= 122 ? c + (lower <= 109 ? 13 : -13) : c;
  }
  let rotated = "";
  for (let k = 0; k < out.length; k += 8192)
    rotated += String.fromCharCode.apply(null, out.subarray(k, k + 8192) as unknown as number[]);
  return { text: rotated, origin: view.origin };
}

const NON_ASCII = /[^\0-\x7f]/;
const ASCII_SPACE_RUN = /[\t-\r ]+/g;

/**
 * Sequences for a view whose step produced no character: a whitespace run removed from ASCII text
 * decodes to nothing, so no step or list reading is owed to what it produced.
 */
const NOTHING_PRODUCED = new SequenceMap();

/**
 * {@link compactView} of ASCII text: its whitespace removed in one pass, the map to the original
 * built only when a copy is found in the view. Building the view and its map run by run cost a
 * fifth of an ordinary JSON body's redaction, and the map 6 bytes per whitespace run.
 */
/** An ASCII whitespace character (what ASCII compaction drops). */
const ASCII_SPACE = /[\t-\r ]/;

function asciiCompactView(view: View): View | undefined {
  const { text } = view;
  // One byte per character (the text is ASCII), read back by the engine's decoder: the engine's
  // own replace made a part per whitespace run, and a body of a million runs spent half its
  // redaction collecting them.
  // Nothing to drop: no buffer of the text's size (a body of escapes has no whitespace, and
  // this was 4 MB of garbage per 4 MB view: issue #40).
  const first = text.search(ASCII_SPACE);
  if (first < 0) return undefined;
  const out = new Uint8Array(text.length);
  for (let i = 0; i < first; i++) out[i] = text.charCodeAt(i);
  let length = first;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && (c < 9 || c > 13)) out[length++] = c;
  }
  if (length === text.length) return undefined;
  const compact = byteView(out.subarray(0, length));
  let local: Origin | undefined;
  const origin: Origin = (i, end) => {
    if (!local) {
      const map = new SequenceMap();
      let kept = 0;
      let last = 0;
      for (const run of text.matchAll(ASCII_SPACE_RUN)) {
        kept += run.index - last;
        map.add(kept, 0, run[0].length);
        last = run.index + run[0].length;
      }
      local = map.origin();
    }
    return local(i, end);
  };
  return { text: compact, origin: compose(view.origin, origin), changed: NOTHING_PRODUCED };
}
