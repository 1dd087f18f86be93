/**
 * The run-decoded view: long runs of base64, base64url, hex, base32 or base32hex that decode to text, as
 * that text. Run encodings are otherwise found only as literal forms (../search/secret-forms.ts),
 * two layers deep; a third layer under a run encoding (base64 of base64 of `%XX`, hex of base64 of
 * `&#…;`, base64 of a decimal list of UTF-16 bytes) multiplied the forms past what a redactor can
 * build (4,900 more per secret: a redactor built in 4× the time). Decoding the outer run instead
 * leaves two layers, which every view of ./decoded-views.ts reads: the decoded runs are searched
 * as a text of their own, in all of them (a third decoding of a run encoding, base64 of base64 of
 * base64 of `%XX`, as a run-decoded view of this one).
 *
 * Which runs (what keeps an ordinary body's cost to one pass): at least {@link MIN_RUN} characters
 * of one alphabet, line breaks and `\n`, `\r` escapes between them skipped (base64 in lines,
 * also inside a JSON string); a run is decoded only when a sample of its decoding at its start or
 * at its end is text (at least {@link PRINTABLE} of the bytes printable ASCII), at the alignment
 * that makes it so: a run that an API glued onto other letters of its alphabet reads at its end.
 * Random data, hashes, a base64 image and prose decode to bytes that are not text: the cost is
 * two samples per run. A run whose decoding begins and ends with bytes other than text (a copy in
 * the middle of a binary blob) is not read; docs/security.md says so.
 *
 * A copy found in the view is cut out of its run where the characters holding its bytes are.
 */
import { latin1 } from "../byte-text";
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import type { Origin, View } from "../view-builder";

/**
 * Fewest characters of a run decoded: an 8-character secret's three-layer forms (base64 of base64
 * of base64: 24 characters; hex of base64 of base64, base64 of hex of base64: 32) are longer.
 */
export const MIN_RUN = 20;
/** Characters of a run each sample decodes (12 base64 groups, 6 of base32, 24 hex pairs). */
const SAMPLE = 48;
/** Share of a sample's bytes that must be printable ASCII for the run to be read as text. */
const PRINTABLE = 0.85;

// Alphabet bits per ASCII code.
const BASE64 = 1;
const HEX = 2;
const BASE32_UPPER = 4;
const BASE32_LOWER = 8;
// base32hex (RFC 4648 §7: `0-9A-V`), in either case.
const BASE32HEX_UPPER = 16;
const BASE32HEX_LOWER = 32;
const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9+/_-]/.test(ch)) CLASSES[c]! |= BASE64;
  if (/[0-9a-fA-F]/.test(ch)) CLASSES[c]! |= HEX;
  if (/[A-Z2-7]/.test(ch)) CLASSES[c]! |= BASE32_UPPER;
  if (/[a-z2-7]/.test(ch)) CLASSES[c]! |= BASE32_LOWER;
  if (/[0-9A-V]/.test(ch)) CLASSES[c]! |= BASE32HEX_UPPER;
  if (/[0-9a-v]/.test(ch)) CLASSES[c]! |= BASE32HEX_LOWER;
}

/** A run encoding: which runs it reads, its group of characters, and how a group string decodes. */
interface Codec {
  readonly alphabet: number;
  /** Characters per group, and the bytes they hold. */
  readonly group: number;
  readonly bytes: number;
  /** Each character's value (-1: not in the alphabet), and the bits it holds. */
  readonly values: Int8Array;
  readonly width: number;
  /** The bytes (one character per byte) of groups; a last partial group gives its whole bytes. */
  decode(groups: string): string;
}

/** Each character's value in an alphabet (-1: not in it), both cases for hex and base32. */
const valuesOf = (alphabet: string) => {
  const values = new Int8Array(128).fill(-1);
  for (let v = 0; v < alphabet.length; v++) {
    values[alphabet.toUpperCase().charCodeAt(v)] = v;
    values[alphabet.toLowerCase().charCodeAt(v)] = v;
  }
  return values;
};
const HEX_VALUES = valuesOf("0123456789abcdef");
const BASE32_VALUES = valuesOf("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
const BASE32HEX_VALUES = valuesOf("0123456789ABCDEFGHIJKLMNOPQRSTUV");
const BASE64_VALUES = valuesOf("");
for (let v = 0; v < 64; v++)
  BASE64_VALUES["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charCodeAt(v)] =
    v;
BASE64_VALUES[45] = 62; // `-` and `_` of base64url
BASE64_VALUES[95] = 63;

/**
 * The bytes of a run of an alphabet of 2^`width` letters, most significant bit first (hex and
 * base32), into one array read as text at once: a string grown by a character per byte cost
 * ~100 ms for a few MB.
 */
function decodeBits(groups: string, values: Int8Array, width: number): string {
  const out = new Uint8Array(Math.floor((groups.length * width) / 8));
  let [bits, value, length] = [0, 0, 0];
  for (let i = 0; i < groups.length; i++) {
    value = ((value << width) | values[groups.charCodeAt(i)]!) & 0xffff;
    bits += width;
    if (bits >= 8) {
      out[length++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  return byteText(out.subarray(0, length));
}

const ascii = new TextDecoder();

/**
 * Bytes as text, one character per byte: ASCII (a run's characters, a decoding that is text)
 * read by the platform's decoder at once, where {@link latin1}'s 32 KB pieces were a tenth of a
 * body's cost with a line break after every character.
 */
function byteText(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return latin1(bytes);
  return ascii.decode(bytes);
}

const CODECS: readonly Codec[] = [
  {
    alphabet: HEX,
    group: 2,
    bytes: 1,
    values: HEX_VALUES,
    width: 4,
    decode: (groups) => decodeBits(groups, HEX_VALUES, 4),
  },
  {
    alphabet: BASE32_UPPER | BASE32_LOWER,
    group: 8,
    bytes: 5,
    values: BASE32_VALUES,
    width: 5,
    decode: (groups) => decodeBits(groups, BASE32_VALUES, 5),
  },
  {
    // After hex and base32: tried only on a run whose samples read as neither and that holds a
    // letter beyond `f` (see `fits` below).
    alphabet: BASE32HEX_UPPER | BASE32HEX_LOWER,
    group: 8,
    bytes: 5,
    values: BASE32HEX_VALUES,
    width: 5,
    decode: (groups) => decodeBits(groups, BASE32HEX_VALUES, 5),
  },
  {
    alphabet: BASE64,
    group: 4,
    bytes: 3,
    values: BASE64_VALUES,
    width: 6,
    decode: (groups) => {
      // A last group of 2 or 3 characters is 1 or 2 bytes (its `=` padding ends the run).
      const rest = groups.length % 4;
      const whole = rest === 1 ? groups.slice(0, -1) : groups + "==".slice(0, (4 - rest) % 4);
      return atob(whole.replaceAll("-", "+").replaceAll("_", "/"));
    },
  },
];

/**
 * Whether whole groups of a codec decode to text (at least {@link PRINTABLE} of the bytes
 * printable ASCII, or the UTF-8 of a Unicode tag character): decoded byte by byte in one loop,
 * stopping once too many bytes are not text. A run that is not text (a hash, random data) is
 * tried at every alignment at both ends: decoding each sample to a string first made a JSON list
 * of commit ids cost 3× its cost without this view. Tag characters count as text: they mirror
 * ASCII, and a copy whose letters alternate with them (read in place, ../spellings/tag-view.ts)
 * is four bytes of tag to one of letter, so base64 of it was never decoded (attack8).
 */
function sampleIsText(codec: Codec, sample: Uint8Array, from: number, to: number): boolean {
  const { values, width } = codec;
  const total = Math.floor(((to - from) * width) / 8);
  if (total === 0) return false;
  const allowed = total - Math.ceil(total * PRINTABLE);
  // `tag`: bytes of a tag character's UTF-8 (F3 A0 80–81 80–BF) read so far; counted as not text
  // until the fourth, then given back.
  let [bits, value, other, tag] = [0, 0, 0, 0];
  for (let i = from; i < to; i++) {
    value = ((value << width) | values[sample[i]!]!) & 0xffff;
    bits += width;
    if (bits >= 8) {
      bits -= 8;
      const c = (value >>> bits) & 0xff;
      const printable = (c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13;
      if (printable) {
        tag = 0;
        continue;
      }
      other++;
      tag = tagBytes(tag, c);
      if (tag === 4) [other, tag] = [other - 4, 0];
      if (other - tag > allowed) return false;
    }
  }
  return other <= allowed;
}

/** Bytes of a tag character's UTF-8 read once byte `c` follows `read` of them (0: none). */
function tagBytes(read: number, c: number): number {
  if (read === 1 && c === 0xa0) return 2;
  if (read === 2 && (c === 0x80 || c === 0x81)) return 3;
  if (read === 3 && c >= 0x80 && c <= 0xbf) return 4;
  return c === 0xf3 ? 1 : 0;
}

/**
 * How many characters a line break inside a run takes at `at` (0: none): a line break, or a
 * `\n` or `\r` escape (base64 in lines, in a JSON string). A space ends a run: words beside a
 * run on its line are not glued to it.
 */
function separatorAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 10 || c === 13) return 1;
  if (c !== 92) return 0;
  const next = text.charCodeAt(at + 1);
  return next === 110 || next === 114 ? 2 : 0;
}

/** Characters kept of a run's start and of its end for the samples (a few more than one). */
const KEPT = SAMPLE + 8;
/** The first {@link KEPT} characters of the run being looked at, and its last (at the end). */
const HEAD = new Uint8Array(KEPT);
const TAIL = new Uint8Array(KEPT);

/**
 * The alignment (characters skipped at the start of the run) at which a codec reads a run of
 * `length` characters as text, or -1: a sample at its start ({@link HEAD}), else one at its end
 * ({@link TAIL}, holding `kept` characters).
 */
function textAlignment(codec: Codec, kept: number, length: number): number {
  for (let k = 0; k < codec.group; k++) {
    const groups = Math.floor(Math.min(SAMPLE, length - k) / codec.group) * codec.group;
    if (groups > 0 && sampleIsText(codec, HEAD, k, k + groups)) return k;
  }
  for (let k = 0; k < codec.group; k++) {
    // The last whole groups at alignment k, as positions in TAIL (the run's last characters).
    const whole = Math.floor((length - k) / codec.group) * codec.group;
    const from = k + Math.max(0, whole - Math.floor(SAMPLE / codec.group) * codec.group);
    // A short run's end sample is its start sample, already tried.
    if (from === k || whole <= 0) continue;
    const start = from - (length - kept) + (KEPT - kept);
    if (start < KEPT - kept) continue;
    if (sampleIsText(codec, TAIL, start, k + whole - (length - kept) + (KEPT - kept))) return k;
  }
  return -1;
}

/**
 * The view of the runs of a text that decode to text, the decoded runs one per line, or
 * undefined when there are none: a sliced pass (../slices.ts), one look per character.
 * @param view - a text (the body, or its bytes one character per byte) and its map
 */
export function* runDecodedViewInSlices(view: View): Sliced<View | undefined> {
  const { text } = view;
  const n = text.length;
  let budget = SLICE_POSITIONS;
  const segments: Segment[] = [];
  const decoded: string[] = [];
  let length = 0;
  /**
   * Decodes the run in `[start, end)` (`count` characters of the alphabets `classes`) with the
   * first codec that reads it as text, as a segment of the view; returns the budget it used.
   */
  const read = (
    start: number,
    end: number,
    count: number,
    classes: number,
    redundant?: (codec: Codec, k: number) => boolean,
  ): number => {
    firstCharacters(text, start, end);
    // A run no longer than a sample has no end sample of its own (textAlignment).
    const kept = count > SAMPLE ? lastCharacters(text, start, end) : 0;
    for (const codec of CODECS) {
      // An alphabet in two cases fits a run of either case (not a run of both). base32hex does
      // not fit a run of hex digits alone: their values (below 16) make bytes that pass for text
      // often enough that a JSON list of commit ids had runs read as base32hex (a view, and all
      // the views of it, for an ordinary body); text in base32hex has letters beyond `f`.
      const fits =
        (classes & codec.alphabet) !== 0 &&
        (codec.values !== BASE32HEX_VALUES || (classes & HEX) === 0);
      if (!fits) continue;
      const k = textAlignment(codec, kept, count);
      if (k < 0) continue;
      if (redundant?.(codec, k)) return 0;
      const run = runCharacters(text, start, end);
      let bytes: string;
      try {
        bytes = codec.decode(run.content.slice(k));
      } catch {
        continue;
      }
      // The run's characters are let go: the map keeps their count and where some of them are.
      const { checkpoints } = run;
      const characters = run.content.length;
      segments.push({
        characters,
        checkpoints,
        viewStart: length,
        length: bytes.length,
        k,
        codec,
      });
      decoded.push(bytes);
      length += bytes.length + 1;
      last = { codec, k };
      return characters >> 2;
    }
    return 0;
  };
  // `i` is always 0 or just past a character that ends runs, so a run starts at `i` or later.
  let i = 0;
  // Where the last cut run read whole ends.
  let joinedUntil = 0;
  // The codec and alignment of the last run read.
  let last: { codec: Codec; k: number } | undefined;
  // Read through a call: `read` sets it, which the compiler does not see.
  const lastRead = () => last;
  // The last cut run read whole: where it starts, its pieces' width, and how it was read.
  let join: { start: number; width: number; codec: Codec; k: number } | undefined;
  // Whether a piece of that cut run starting at `start`, read with `codec` at `k`, reads bytes
  // the whole run's reading holds (its groups are the whole run's groups).
  const inJoin =
    (start: number) =>
    (codec: Codec, k: number): boolean => {
      if (!join || codec !== join.codec) return false;
      const offset = ((start - join.start) / (join.width + 1)) * join.width;
      return (offset + k - join.k) % codec.group === 0;
    };
  while (i + MIN_RUN <= n) {
    // A run of MIN_RUN characters starting at `i` would cover `i + MIN_RUN - 1`: look back from
    // there for a character that ends runs; one found lets the search go on past it, so an
    // ordinary text is looked at a few characters per MIN_RUN, not at every character. The
    // alphabets of the characters looked at are kept for a run found (a hash or id in a JSON list
    // was looked at four times per character, and their count was most of its cost).
    let [back, classes, count] = [i + MIN_RUN - 1, 0xff, 0];
    for (; back >= i; back--) {
      const d = text.charCodeAt(back);
      if (d < 128 && (CLASSES[d]! & BASE64) !== 0) {
        if (escapeLetter(text, back)) continue;
        classes &= CLASSES[d]!;
        count++;
      } else if (separatorAt(text, back) === 0) break;
    }
    budget -= i + MIN_RUN - back;
    if (budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    if (back >= i) {
      i = back + 1;
      continue;
    }
    // A run: its characters (line breaks skipped), the alphabets all of them belong to, read on
    // to its end.
    const start = i;
    let end = i + MIN_RUN;
    for (; end < n; end++) {
      const d = text.charCodeAt(end);
      if (d < 128 && (CLASSES[d]! & BASE64) !== 0) {
        if (escapeLetter(text, end)) continue;
        classes &= CLASSES[d]!;
        count++;
      } else if (separatorAt(text, end) === 0) break;
    }
    i = end + 1;
    budget -= end - start;
    if (count < MIN_RUN) continue;
    last = undefined;
    // A piece inside the last cut run read whole (a run reaching past it holds more).
    const inside = start < joinedUntil && end <= joinedUntil;
    budget -= read(start, end, count, classes, inside ? inJoin(start) : undefined);
    // A run cut into pieces of its length joined by single spaces (a copy wrapped at a width,
    // `fold -w 39` and spaces): read whole too, beside each piece's own reading, whose bytes
    // lie at other alignments. The pieces after it are looked at once more here.
    // Each piece is looked at by one join at most: the runs inside a cut already read join
    // nothing (a body of spaced runs of one length joined each run to the body's end: quadratic).
    if (count !== end - start || end < joinedUntil) continue;
    const joined = piecesAfter(text, end, count);
    if (joined === undefined) continue;
    joinedUntil = joined.end;
    budget -= joined.end - end;
    const [piece, pieceAt] = [lastRead(), decoded.length - 1];
    last = undefined;
    budget -= read(start, joined.end, count + joined.count, classes & joined.classes);
    const whole = lastRead();
    if (!whole) continue;
    // The pieces' own readings, where they read the bytes the whole run's reading holds, are
    // not kept (attack9): a body of cut runs of cut runs decoded to 1.5 times its length at
    // each of the four levels, 3.7 times main's CPU per MB and twice its memory.
    join = { start, width: count, ...whole };
    if (piece && pieceAt >= 0 && inJoin(start)(piece.codec, piece.k)) {
      const removed = decoded[pieceAt]!.length + 1;
      decoded.splice(pieceAt, 1);
      segments.splice(pieceAt, 1);
      segments[pieceAt] = {
        ...segments[pieceAt]!,
        viewStart: segments[pieceAt]!.viewStart - removed,
      };
      length -= removed;
    }
  }
  if (decoded.length === 0) return undefined;
  const outer = view.origin;
  const local: Origin = (at, isEnd) => segmentOrigin(text, segments, at, isEnd);
  return {
    text: decoded.join("\n"),
    origin: outer ? (at, isEnd) => outer(local(at, isEnd), isEnd) : local,
  };
}

/** A decoded run: its characters, where each line of them lies, what it decoded to and how. */
interface Segment {
  /** How many characters the run has, line breaks left out. */
  readonly characters: number;
  /** Where every {@link STRIDE}th character of the run (from its first) lies in the text. */
  readonly checkpoints: Int32Array;
  /** Where its decoding starts in the view, and its length. */
  readonly viewStart: number;
  readonly length: number;
  /** Characters of the run skipped before its first group (its alignment). */
  readonly k: number;
  readonly codec: Codec;
}

/**
 * Where position `at` of the view lies in the text: the characters of the run that hold the
 * decoded bytes' bits (a start rounds down, an end up), so a copy is cut out of its run alone.
 */
function segmentOrigin(
  text: string,
  segments: readonly Segment[],
  at: number,
  isEnd: boolean,
): number {
  let [lo, hi] = [0, segments.length - 1];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.viewStart <= at) lo = mid;
    else hi = mid - 1;
  }
  const segment = segments[lo]!;
  const { codec, characters, checkpoints } = segment;
  const byte = Math.max(0, Math.min(at - segment.viewStart, segment.length));
  const scaled = (byte * codec.group) / codec.bytes;
  const c = Math.min(characters, segment.k + (isEnd ? Math.ceil(scaled) : Math.floor(scaled)));
  // An end is just past the character before it (an end at a line's start stays on the line
  // before), a start at its character; past the run's last character, just past that one.
  if (isEnd ? c === 0 : c < characters) return characterAt(text, checkpoints, c);
  return characterAt(text, checkpoints, c - 1) + 1;
}

/**
 * The pieces after a run of `width` characters that ends at `at`: each a single space and then
 * `width` characters of the base64 alphabet, the last one `width` or fewer. Their end, their
 * characters and the alphabets all of them belong to; undefined when none follows.
 */
function piecesAfter(
  text: string,
  at: number,
  width: number,
): { end: number; count: number; classes: number } | undefined {
  let [count, classes] = [0, 0xff];
  while (text.charCodeAt(at) === 32) {
    let [p, alphabets] = [at + 1, 0xff];
    for (; p <= at + 1 + width; p++) {
      const d = text.charCodeAt(p);
      if (!(d < 128 && (CLASSES[d]! & BASE64) !== 0)) break;
      alphabets &= CLASSES[d]!;
    }
    const piece = p - at - 1;
    // A longer piece is no part of this cut (it is a run of its own).
    if (piece === 0 || piece > width) break;
    count += piece;
    classes &= alphabets;
    at = p;
    if (piece < width) break;
  }
  return count === 0 ? undefined : { end: at, count, classes };
}

/** Characters of a run between two of the positions its map keeps. */
const STRIDE = 256;

/** Where character `c` of a run lies in the text: from the position kept before it, on. */
function characterAt(text: string, checkpoints: Int32Array, c: number): number {
  let at = checkpoints[Math.floor(c / STRIDE)]!;
  for (let m = c - (c % STRIDE); m < c; m++) {
    at++;
    // Line breaks, and the spaces between the pieces of a cut run.
    while (separatorAt(text, at) > 0 || text.charCodeAt(at) === 32)
      at += Math.max(1, separatorAt(text, at));
  }
  return at;
}

/**
 * A run's characters, line breaks (and the spaces of a cut run) left out, and where every {@link STRIDE}th of them lies. The
 * characters go into one byte array, and the map keeps a position per 256 characters, not per
 * line: a slice and two numbers per line took ~140 MB for a 1 MB body with a line break after
 * every character (attack5).
 */
function runCharacters(
  text: string,
  start: number,
  end: number,
): { content: string; checkpoints: Int32Array } {
  const content = new Uint8Array(end - start);
  const checkpoints = new Int32Array(Math.ceil((end - start) / STRIDE) + 1);
  let length = 0;
  for (let i = start; i < end;) {
    const skip = text.charCodeAt(i) === 32 ? 1 : separatorAt(text, i);
    if (skip > 0) {
      i += skip;
      continue;
    }
    if (length % STRIDE === 0) checkpoints[length / STRIDE] = i;
    content[length++] = text.charCodeAt(i++);
  }
  return {
    content: byteText(content.subarray(0, length)),
    checkpoints: checkpoints.slice(0, Math.ceil(length / STRIDE)),
  };
}

/** Whether the character at `at` is the letter of a `\n` or `\r` escape (a line break). */
const escapeLetter = (text: string, at: number) => {
  const c = text.charCodeAt(at);
  return (c === 110 || c === 114) && text.charCodeAt(at - 1) === 92;
};

/**
 * Copies the first {@link KEPT} characters of a run, line breaks left out, into {@link HEAD}: codes
 * into a buffer, where strings grown a character at a time were most of an ordinary body's cost.
 */
function firstCharacters(text: string, start: number, end: number): void {
  let count = 0;
  for (let i = start; i < end && count < KEPT; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && (CLASSES[c]! & BASE64) !== 0 && !escapeLetter(text, i)) HEAD[count++] = c;
  }
}

/**
 * Copies the last {@link KEPT} characters of a run, separators left out, to the end of
 * {@link TAIL}, and says how many there are.
 */
function lastCharacters(text: string, start: number, end: number): number {
  let count = 0;
  for (let i = end - 1; i >= start && count < KEPT; i--) {
    const c = text.charCodeAt(i);
    // An `n` of a `\n` escape is a separator, not a character of the run.
    if ((c === 110 || c === 114) && text.charCodeAt(i - 1) === 92) i--;
    else if (c < 128 && (CLASSES[c]! & BASE64) !== 0) TAIL[KEPT - ++count] = c;
  }
  return count;
}
