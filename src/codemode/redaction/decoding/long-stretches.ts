/**
 * Bytes cut to their long stretches: a binary body (an image, an archive, random bytes) holds an
 * inert character (./changed-segments.ts) every ~7 bytes, and most of the stretches between two
 * are too short to hold any form of a secret in any reading. Only the stretches that may are
 * searched (../search/secret-search.ts), as one text mapped to the bytes; every view of
 * ./decoded-views.ts is made of that text instead of all of it (issue #40: the readings of the
 * whole 4 MB of random bytes were ~300 ms of CPU per MB).
 *
 * Why nothing the whole search finds is lost. A find is a form of a secret (all ASCII: the cut
 * is made only then) in some view; call the bytes between two boundaries (below) a stretch.
 *
 * 1. A find lies in one stretch. Every boundary is an inert character, which no reading reads,
 *    drops, folds or joins and no form holds (the premise of ./changed-segments.ts, and for C0
 *    controls and DEL {@link inertControl}'s review), and it is
 *    no byte of a well-formed UTF-8 sequence (a continuation byte 0x80–0x9F shows as an inert
 *    windows-1252 character, `€`, but the UTF-8 reading reads it), so no reading makes one
 *    character of bytes on both sides. One reading reads an inert character as something: a
 *    one-character string of a list (`'€'`, ../spellings/list-items.ts). So an
 *    inert character is no boundary when what follows it may close such a string in some view
 *    and what precedes it may open one ({@link MAY_CLOSE_ITEM}, {@link MAY_OPEN_ITEM}: a quote, a
 *    sequence's end or start, what compaction or the NUL-free view drop, a UTF-8 lead or
 *    continuation byte); a list of such strings then lies in one stretch. Where the cut text joins
 *    two stretches that were apart, a byte 0xFF may stand between them (`cutOut`).
 * 2. A stretch too light for the shortest form holds none. Each character of a view comes from
 *    at least one byte, except where compaction folds a character into several (`™` → `TM`,
 *    `Ⅷ` → `VIII`): a byte's weight ({@link byteWeight}) bounds what it and the sequences it
 *    leads fold to (the most ASCII letters a code point of each UTF-8 length folds to,
 *    {@link MOST_FOLDED}, pinned by a test over every code point). A decoded sequence is as long
 *    as what it decodes to folds to (`%XX` and `\xXX` are Latin-1, which folds to one ASCII
 *    character at most; `&#8551;`, 7 characters, is `Ⅷ`; a list item `8551` and its separator
 *    too). So a find of `m` characters lies in a stretch of weight `m` or more.
 * 3. Readings that join what lies far apart: the lines of every dump (`hexdump -C`, `xxd`,
 *    `od -c`, the lines joined across other text), the runs of ./run-decoded-view.ts (one per
 *    line, joined by compaction), the tag characters (read alone, everything else dropped). A
 *    dump line follows a line break (or starts the text), and a line break in a view is one in
 *    the bytes or a sequence's (`%0a`, `\n`, `&#10;`, `=0A`; for a multiline pattern also U+2028
 *    and U+2029): a stretch holding a line break a dump line may follow (its offset's hex digit,
 *    {@link dumpLineMayFollow}: random bytes hold a line break every ~128 bytes, mostly before
 *    no such thing), or a sequence that may make one (point 4), is kept, and so are the first
 *    and the last stretch (a view's start and end are the text's). A run is {@link MIN_RUN}
 *    characters or more, and a stretch that long is kept. A tag character is four bytes
 *    `F3 A0 …`, a sequence or list items: the stretch is kept (`F3 A0`, a sequence, or
 *    {@link MIN_RUN} characters).
 * 4. Decisions made over a whole view (whether a folded view is made, whether compaction follows
 *    a decoded view, whether the folded view is compacted, whether a view may hide a swallowed
 *    copy: the triggers of ./spelled-views.ts and ./decoded-views.ts) are made as if every
 *    trigger were met (`everyReading`): the cut text may lack a trigger the whole text held (the
 *    views ./changed-segments.ts cuts around what a step changed reach past the boundaries of
 *    this cut, into stretches it leaves out, which point 2 shows hold no find). So is every
 *    decision of ./spelled-views.ts's whether a reading produced a sequence's start anywhere
 *    (then the steps after it are made). Every stretch where a step over the bytes, their
 *    NUL-free view or their ROT13 view may decode a sequence that reads digits or makes a line
 *    break is kept ({@link sequenceMayStart}: a `%`, `&`, `=` or `\` only when the characters
 *    after it, NULs skipped, may complete one), so the first steps decode the same sequences
 *    (the families left out in turn after them are every family in a cut text,
 *    ./decoded-views.ts: a step over a view's changes reaches `LONGEST_SEQUENCE` back, into
 *    the stretch before, which the cut may have changed), and every line break a dump line may
 *    follow in some view is one the bytes held there or one a kept sequence made. Every other
 *    sequence decodes to one character where it stands, read as the rest of its stretch is
 *    (below). A stray `%` (`%G`, `%` before an inert character) or an escape of no digit
 *    (`\"`, `\€`) starts no such sequence in any of those views; random bytes hold one every
 *    ~70 bytes, and their stretches, with those of line breaks before no dump line (point 3),
 *    were half of what the cut kept (27 % of random bytes' bytes, now 14 %).
 * Every other reading is local to a stretch and its two boundaries, which the cut text holds as
 * they are: a stretch kept reads as it did in the whole, and a find in it is found.
 */
import { byteCodes, byteView, utf8CodeFits, utf8LeadLength } from "../byte-text";
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import type { Origin } from "../sequence-map";
import type { View } from "../view-builder";
import { MIN_RUN } from "./run-decoded-view";
import { keepShape } from "../kept-shapes";

/**
 * Cuts made since the isolate started, and the bytes looked at and kept: a test shows the cut is
 * made (the time it saves is in bench/redaction.mjs --heavy).
 */
export const stretchWork = { cuts: 0, viewed: 0, kept: 0 };

/** Bytes shorter than this are searched whole: cutting them saves less than the cut costs. */
export const MIN_STRETCH_CUT = 65_536;

/** A cut that keeps more than this share is not made: the views of the whole cost about as much. */
const MOST_KEPT = 0.6;
/** A cut that kept more than this share of the first slices is given up on. */
const LIKELY_KEPT = 0.8;

/**
 * The most ASCII letters, digits and marks in a row (spaces aside) that compatibility folding
 * (NFKC) makes of one code point, by the length of its UTF-8 sequence: `Ĳ` (2 bytes) → `IJ`,
 * `Ⅷ` (3) → `VIII`, `🄐` (4) → `(A)`. Test: test/unit/codemode/redaction/decoding/long-stretches.test.ts.
 */
export const MOST_FOLDED: readonly number[] = [0, 1, 2, 4, 3];

/**
 * What may follow an inert character that is one character of a list's string (`'€'`): the
 * closing quote, or the first byte of what makes one in some view: a quote, a sequence's start
 * (`%27`, `&#39;`, `\'`, `=27`), what compaction or the NUL-free view drops before it
 * (whitespace, NUL, no-break space, soft hyphen) and every UTF-8 lead byte (a full-width quote,
 * an invisible character, a tag character, a byte-swapped quote).
 */
const MAY_CLOSE_ITEM = new Uint8Array(256);
for (const c of `'"%&\\= \t\n\v\f\r\0`) MAY_CLOSE_ITEM[c.charCodeAt(0)] = 1;
MAY_CLOSE_ITEM[0xa0] = MAY_CLOSE_ITEM[0xad] = 1;
for (let b = 0xc2; b <= 0xf4; b++) MAY_CLOSE_ITEM[b] = 1;

/**
 * What may stand before such a character: the opening quote or the `\` of an escape (`'\€'`),
 * or the last byte of what makes one in some view: a sequence's last character (a digit, a
 * letter of a hex number or of an entity's name, `;`, the space after a CSS escape), what
 * compaction or the NUL-free view drops, and every continuation byte (the last byte of a
 * multi-byte character).
 */
const MAY_OPEN_ITEM = new Uint8Array(256);
for (const c of `'"\\; \t\n\v\f\r\0`) MAY_OPEN_ITEM[c.charCodeAt(0)] = 1;
for (let b = 0; b < 128; b++) if (/[0-9a-z]/i.test(String.fromCharCode(b))) MAY_OPEN_ITEM[b] = 1;
MAY_OPEN_ITEM[0xa0] = MAY_OPEN_ITEM[0xad] = 1;
for (let b = 0x80; b <= 0xbf; b++) MAY_OPEN_ITEM[b] = 1;

/**
 * A line break or a sequence's start `% & \ =`: its stretch is kept where a dump line may
 * follow the line break ({@link dumpLineMayFollow}) or a sequence may start
 * ({@link sequenceMayStart}; see the file header, 3 and 4).
 */
const MARK = new Uint8Array(256);
for (const c of "\n\r%&\\=") MARK[c.charCodeAt(0)] = 1;

/**
 * What may stand for a hex digit in a sequence in the bytes, their NUL-free view or their ROT13
 * view: a hex digit, or a letter ROT13 turns into one (`n`–`s`).
 */
const MAY_HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEFnopqrsNOPQRS") MAY_HEX[c.charCodeAt(0)] = 1;

/** Where the first byte at or after `at` that is no NUL stands (the NUL-free view's next). */
function nonNulAt(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && bytes[at] === 0) at++;
  return at;
}

/**
 * Whether the byte at `i` (one of {@link MARK}) keeps its stretch: {@link dumpLineMayFollow} for
 * a line break, {@link sequenceMayStart} for the rest.
 */
const marks = (bytes: Uint8Array, i: number): boolean =>
  bytes[i] === 0x0a || bytes[i] === 0x0d ? dumpLineMayFollow(bytes, i) : sequenceMayStart(bytes, i);

/**
 * Whether a dump line may start right after the line break at `i` (see the file header, 3): a
 * dump line starts with its offset, a hex digit (`^[0-9a-f]` in every dump reading,
 * ../spellings/dump-views.ts, char-dump-view.ts, xxd-little-endian-view.ts, dump-line.ts), in
 * the bytes, their NUL-free view (NULs skipped), or a view that folds or drops what follows (a
 * byte beyond ASCII may lead a full-width digit or an invisible character: kept whatever it is).
 * A sequence that decodes to a digit there (`\n%30…`) keeps the stretch itself. Compaction drops
 * the line break with every other whitespace, so no compact view holds a line to start.
 */
export function dumpLineMayFollow(bytes: Uint8Array, i: number): boolean {
  const j = nonNulAt(bytes, i + 1);
  return j < bytes.length && (MAY_HEX[bytes[j]!] === 1 || bytes[j]! >= 0x80);
}

/** What may follow an escape's `\` for a sequence that reads digits or makes a line break. */
const ESCAPE_NEXT = new Uint8Array(256);
for (const c of "xXkKuUhH\n\r") ESCAPE_NEXT[c.charCodeAt(0)] = 1;

/**
 * Whether a decoding step (./decode-step.ts, `sequenceAt`) of any families may decode a sequence
 * starting at `i`, a `%`, `&`, `=` or `\`, in the bytes, their NUL-free view or their ROT13
 * view, that reads digits or makes a line break: a superset of every such sequence of those
 * leads, read from the bytes after it with NULs skipped (the NUL-free view joins what they kept
 * apart; a view with the NULs holds the same bytes with nothing between, which skipping finds as
 * well). `%XX` and `%uXXXX` need two hex digits or a `u` and one (`h` in ROT13); `&#…` and the
 * named references (`&sol;`, `&NewLine;`: every name a letter first, ROT13 keeping letters) a
 * `#` or an ASCII letter; `=XX` two hex digits, a soft line break a line break; `\xHH`, `\uHHHH`,
 * `\u{…}` an `x` or `u` (`k`, `h` in ROT13), a CSS escape `\HH` a hex digit, `\n` and `\r` (hex
 * digits in ROT13) and `\` before a line break a line break. Any other escape (`\"`, `\t`, `\€`)
 * decodes to one character and reads no digits: no family, and no line.
 */
export function sequenceMayStart(bytes: Uint8Array, i: number): boolean {
  const j = nonNulAt(bytes, i + 1);
  if (j >= bytes.length) return false;
  const next = bytes[j]!;
  const lead = bytes[i]!;
  if (lead === 0x5c) return MAY_HEX[next] === 1 || ESCAPE_NEXT[next] === 1;
  if (lead === 0x26) return next === 0x23 || ((next | 32) >= 0x61 && (next | 32) <= 0x7a);
  if (lead === 0x3d && (next === 0x0a || next === 0x0d)) return true;
  const first =
    MAY_HEX[next] === 1 ||
    (lead === 0x25 && (next | 32) === 0x75) ||
    (lead === 0x25 && (next | 32) === 0x68);
  if (!first) return false;
  const k = nonNulAt(bytes, j + 1);
  return k < bytes.length && MAY_HEX[bytes[k]!] === 1;
}

/** The bytes cut to their long stretches: their text (one character per byte) and bytes. */
export interface LongStretches {
  /** The stretches' text (one character per byte), mapped to the whole bytes. */
  readonly view: View;
  /** The stretches' bytes, in the same order (what the UTF-8 reading reads). */
  readonly bytes: Uint8Array;
}

/**
 * The bytes' long stretches (see the file header) as one text mapped to the bytes, or undefined
 * when the bytes are short, or the cut would keep most of them; a sliced pass. Read from the
 * bytes alone: the characters the byte view shows them as come from its table
 * (../byte-text.ts's `byteCodes`), and the cut's text is the byte view of the kept bytes, the
 * same text as the kept parts of the whole view, which is not made (issue #40: 8 MB for 4 MiB of
 * random bytes, and 8 MB more of pieces while it was made).
 * @param bytes - the bytes
 * @param ends - whether a character may end a stretch: inert (./changed-segments.ts) or
 *   {@link inertControl}, and in no form of a secret, for forms that are all ASCII
 * @param shortest - the length of the shortest form searched
 */
export function* longStretchesInSlices(
  bytes: Uint8Array,
  ends: (code: number) => boolean,
  shortest: number,
): Sliced<LongStretches | undefined> {
  const n = bytes.length;
  // Text without an inert character (ASCII, ordinary JSON) has one stretch: one look.
  if (n < MIN_STRETCH_CUT || !mayHoldInertByte(bytes)) return undefined;
  const scan = new StretchScan(bytes, new ByteTables(ends), shortest);
  for (let i = 0; i <= n;) {
    i = scan.run(i, Math.min(n + 1, i + SLICE_POSITIONS));
    if (i > n) break;
    yield PAUSE;
    // Most of what was read so far is kept (a UTF-8 text: its few inert characters stand
    // inside sequences): the cut would not pay.
    const keeping = scan.kept + (i - scan.start >= MIN_RUN ? i - scan.start : 0);
    if (keeping > n * MOST_KEPT || keeping > i * LIKELY_KEPT) return undefined;
  }
  const { segments, kept } = scan;
  if (kept > n * MOST_KEPT) return undefined;
  stretchWork.cuts++;
  stretchWork.viewed += n;
  stretchWork.kept += kept;
  return cutOut(bytes, segments, kept);
}

/**
 * Whether some byte shows as a character that may be inert (beyond ASCII, not a UTF-8
 * continuation byte as Latin-1 shows it: ./changed-segments.ts's `mayHoldInert` over the byte
 * view, read through its table).
 */
function mayHoldInertByte(bytes: Uint8Array): boolean {
  const codes = byteCodes();
  for (let i = 0; i < bytes.length; i++) if (codes[bytes[i]!]! >= 0xc0) return true;
  return false;
}

/**
 * The pass of {@link longStretchesInSlices} over the bytes, in turns of bounded length: a plain
 * method, not the generator's own loop (V8 optimizes it better: the pass was ~15 % of the
 * random-bytes row, a third less this way).
 */
class StretchScan {
  /** Kept segments as `[start, end)` pairs: a stretch with its two boundaries. */
  readonly segments: number[] = [];
  /** Bytes kept so far. */
  kept = 0;
  /** Where the stretch being read starts. */
  start = 0;
  private heavy = 0;
  private marked = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly tables: ByteTables,
    private readonly shortest: number,
  ) {}

  /**
   * Reads the positions `[from, to)` (up to the bytes' length, which ends the last stretch);
   * answers where it stopped.
   */
  run(from: number, to: number): number {
    const { bytes, shortest } = this;
    const { boundary, weight, mark } = this.tables;
    const n = bytes.length;
    let { start, heavy, marked } = this;
    let i = from;
    for (; i < to; i++) {
      if (i < n) {
        const b = bytes[i]!;
        if (!(boundary[b] && isBoundary(bytes, i))) {
          heavy += weight[b]!;
          if (mark[b] === 1 && marked === 0 && marks(bytes, i)) marked = 1;
          // A tag character's first two bytes (F3 A0); a line or paragraph separator (E2 80 A8,
          // E2 80 A9), where a multiline pattern's line starts too (the dump lines of the UTF-8
          // reading's notations).
          if (b === 0xf3 && bytes[i + 1] === 0xa0) marked = 1;
          else if (b === 0xe2 && bytes[i + 1] === 0x80 && (bytes[i + 2]! | 1) === 0xa9) marked = 1;
          continue;
        }
      }
      // The stretch [start, i), bounded by i (a boundary, or the end).
      if (start === 0 || i === n || marked !== 0 || heavy >= shortest || i - start >= MIN_RUN)
        this.keep(Math.max(0, start - 1), Math.min(n, i + 1));
      start = i + 1;
      heavy = 0;
      marked = 0;
    }
    [this.start, this.heavy, this.marked] = [start, heavy, marked];
    return i;
  }

  /** Keeps `[from, to)`, joined to the last segment when they touch. */
  private keep(from: number, to: number): void {
    const { segments } = this;
    const last = segments.length - 1;
    if (last > 0 && segments[last]! >= from) {
      this.kept += to - segments[last]!;
      segments[last] = to;
    } else {
      segments.push(from, to);
      this.kept += to - from;
    }
  }
}

/**
 * Whether the byte at `i` (an inert character) is a boundary: no byte of a well-formed UTF-8
 * sequence, and not between what may open and close a one-character string around it.
 */
function isBoundary(bytes: Uint8Array, i: number): boolean {
  if (i > 0 && MAY_OPEN_ITEM[bytes[i - 1]!] === 1 && MAY_CLOSE_ITEM[bytes[i + 1] ?? 0] === 1)
    return false;
  const b = bytes[i]!;
  if (b < 0x80 || b > 0xbf) return true;
  // A continuation byte: inside the sequence of a lead up to three bytes before?
  for (let k = 1; k <= 3 && i - k >= 0; k++) {
    const lead = bytes[i - k]!;
    if (lead >= 0x80 && lead <= 0xbf) continue;
    return !wellFormedAt(bytes, i - k, k);
  }
  return true;
}

/** Whether a well-formed UTF-8 sequence starts at `at` and reaches `at + past`. */
function wellFormedAt(bytes: Uint8Array, at: number, past: number): boolean {
  const lead = bytes[at]!;
  const length = utf8LeadLength(lead);
  if (length <= past || at + length > bytes.length) return false;
  let code = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) {
    const c = bytes[at + k]!;
    if (c < 0x80 || c > 0xbf) return false;
    code = (code << 6) | (c & 0x3f);
  }
  return utf8CodeFits(code, length);
}

/**
 * Per byte value: whether its character is inert (a boundary unless {@link isBoundary} says
 * otherwise), its weight ({@link byteWeight}) and whether it marks its stretch ({@link MARK}).
 */
class ByteTables {
  readonly boundary = new Uint8Array(256);
  readonly weight = new Uint8Array(256);
  readonly mark = MARK;

  constructor(ends: (code: number) => boolean) {
    // The character each byte value shows as (the byte view is a function of the byte).
    const codes = byteCodes();
    for (let b = 0; b < 256; b++) {
      this.boundary[b] = ends(codes[b]!) ? 1 : 0;
      this.weight[b] = byteWeight(b, codes[b]!);
    }
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
keepShape(new StretchScan(new Uint8Array(0), new ByteTables(() => true), 1));

/**
 * The most characters of a find a byte can stand for (see the file header, 2): one, or what its
 * character folds to (`™` → `TM`), and for a lead byte what the sequence it leads folds to, less
 * one for each continuation byte.
 * @param byte - the byte
 * @param code - the character the byte view shows for it
 */
export function byteWeight(byte: number, code: number): number {
  let weight = Math.max(1, asciiRun(String.fromCharCode(code).normalize("NFKC")));
  const length = utf8LeadLength(byte);
  if (length > 0) weight = Math.max(weight, MOST_FOLDED[length]! - (length - 1));
  return weight;
}

/** The most ASCII characters in a row, whitespace skipped (compaction drops it). */
export function asciiRun(text: string): number {
  let [best, run] = [0, 0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    run = c < 0x80 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/**
 * The C0 control characters other than NUL and whitespace, and DEL: inert for the cut though not
 * for ./changed-segments.ts (which a program's ordinary text meets far more often). No reading
 * reads one as anything but itself: every sequence, list item and separator, notation, dump line
 * (printable cells and text columns), Morse code, run of ./run-decoded-view.ts (its separators
 * are line breaks and spaces) and tag character is made of other characters; compaction keeps
 * it (it drops whitespace, 9–13, and no control is default-ignorable or a format character),
 * folding leaves it, the NUL-free view drops NUL only, an escape `\X` decodes to it as it is
 * (still there, still inert), and the UTF-8 reading reads it as itself (no part of a sequence).
 * A one-character string of it (`'\x01'`) is the exception ./long-stretches.ts's header names.
 * @param code - a UTF-16 code unit
 */
export const inertControl = (code: number): boolean =>
  (code >= 1 && code <= 8) || (code >= 14 && code <= 31) || code === 127;

/** A continuation byte of UTF-8. */
const isContinuation = (b: number | undefined) => b !== undefined && b >= 0x80 && b <= 0xbf;

/**
 * The kept segments as one text and one byte array, with the map back to the bytes. Where a
 * segment ending in a continuation byte meets one starting with another (two boundaries that are
 * windows-1252 characters, `€` and `œ`), a byte 0xFF (inert, and no part of UTF-8) stands
 * between them: the UTF-8 reading would otherwise read a character the bytes do not hold (the
 * lead before the first, both continuations: `E2 80 | 8B` is a zero-width space, which
 * compaction drops, joining the two segments). It maps to the end of the segment before it.
 */
function cutOut(bytes: Uint8Array, segments: number[], kept: number): LongStretches {
  const count = segments.length / 2;
  const out = new Uint8Array(kept + count);
  const starts = new Int32Array(count);
  const at = new Int32Array(count);
  let length = 0;
  for (let s = 0; s < segments.length; s += 2) {
    const [from, to] = [segments[s]!, segments[s + 1]!];
    starts[s / 2] = from;
    at[s / 2] = length;
    out.set(bytes.subarray(from, to), length);
    length += to - from;
    if (isContinuation(bytes[to - 1]) && isContinuation(bytes[segments[s + 2]!])) {
      out[length++] = 0xff;
    }
  }
  // The byte view of the kept bytes is the kept parts of the bytes' view, with `ÿ` for each 0xFF
  // put between two (the view is a function of each byte alone: ../byte-text.ts, `byteCodes`).
  const text = byteView(out.subarray(0, length));
  const origin: Origin = (i, end) => {
    // The segment holding position i (as an end: the one it ends, at a boundary).
    let [lo, hi] = [0, at.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (end ? at[mid]! < i : at[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]! + (i - at[lo]!);
  };
  return { view: { text, origin }, bytes: out.subarray(0, length) };
}
