/**
 * The run encodings the run-decoded view reads (./run-decoded-view.ts): hex, base32, base32hex
 * and base64 (base64url with it), each an alphabet, a group of characters and the bytes they
 * hold; and the test that chooses which runs are read at all: whether a sample of a run's
 * decoding, at its start or at its end, is text.
 *
 * Why samples: random data, hashes, a base64 image and prose decode to bytes that are not text,
 * and decoding every run of a body whole would cost a pass and a copy per run; two samples per
 * run cost a few dozen characters (docs/security.md says which runs are not read).
 */
import { latin1 } from "../byte-text";
import { PAUSE, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";

/** Characters of a run each sample decodes (12 base64 groups, 6 of base32, 24 hex pairs). */
export const SAMPLE = 48;
/** Share of a sample's bytes that must be printable ASCII for the run to be read as text. */
const PRINTABLE = 0.85;
/**
 * Characters of a run's start and of its end kept for the samples (a few more than one): the
 * length of the buffers {@link textAlignment} reads.
 */
export const KEPT = SAMPLE + 8;

// Alphabet bits per ASCII code.
/** The base64 alphabet, base64url's `-` and `_` with it: every run character is one of these. */
export const BASE64 = 1;
/** Hex digits, in either case. */
export const HEX = 2;
const BASE32_UPPER = 4;
const BASE32_LOWER = 8;
// base32hex (RFC 4648 §7: `0-9A-V`), in either case.
const BASE32HEX_UPPER = 16;
const BASE32HEX_LOWER = 32;
/** The alphabets (bits) each ASCII code belongs to. */
export const CLASSES = new Uint8Array(128);
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
export interface Codec {
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

/** How a run reads as text: the codec that reads it, at alignment `k`. */
export interface RunReading {
  readonly codec: Codec;
  /** Characters of the run skipped before its first group. */
  readonly k: number;
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
 * @param bytes - the bytes
 */
export function byteText(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return latin1(bytes);
  return ascii.decode(bytes);
}

/**
 * The decoding of a run's characters from `k` on (its alignment), in pieces of whole groups with
 * a pause between them when `budget` is spent: a sliced pass (../slices.ts), since a run can be
 * the whole body. The same bytes as decoding them at once: every piece but the last is whole
 * groups of 8 characters (a multiple of every codec's group: 2, 4, 8), and a group's bits are
 * its own, so a piece decodes to exactly the bytes the whole decoding holds for it (no bits carry
 * over, no padding inside); the last piece ends where the whole does, with the same partial group.
 * @param codec - the codec
 * @param content - the run's characters (codes of its alphabet)
 * @param k - characters skipped before its first group
 * @param budget - the pass's slice budget, a unit per character decoded
 * @param work - counts the characters decoded (tests)
 */
export function* decodeInSlices(
  codec: Codec,
  content: Uint8Array,
  k: number,
  budget: SliceBudget,
  work: { positions: number },
): Sliced<string> {
  let out = "";
  let at = k;
  do {
    const to = Math.min(content.length, at + Math.max(8, budget.left - (budget.left % 8)));
    out += codec.decode(byteText(content.subarray(at, to)));
    budget.left -= to - at;
    work.positions += to - at;
    at = to;
    if (at < content.length && budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  } while (at < content.length);
  return out;
}

/** The run encodings, in the order they are tried on a run. */
export const CODECS: readonly Codec[] = [
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
    // letter beyond `f` (see `codecFits` below).
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
 * Whether a codec may read a run whose characters all belong to the alphabets `classes`. An
 * alphabet in two cases fits a run of either case (not a run of both). base32hex does not fit a
 * run of hex digits alone: their values (below 16) make bytes that pass for text often enough
 * that a JSON list of commit ids had runs read as base32hex (a view, and all the views of it,
 * for an ordinary body); text in base32hex has letters beyond `f`.
 * @param codec - one of {@link CODECS}
 * @param classes - the alphabets (bits) every character of the run belongs to
 */
export const codecFits = (codec: Codec, classes: number): boolean =>
  (classes & codec.alphabet) !== 0 && (codec.values !== BASE32HEX_VALUES || (classes & HEX) === 0);

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
 * The alignment (characters skipped at the start of the run) at which a codec reads a run of
 * `length` characters as text, or -1: a sample at its start, else one at its end, at the
 * alignment that makes it so (a run that an API glued onto other letters of its alphabet reads
 * at its end).
 * @param codec - the codec tried
 * @param head - the run's first {@link KEPT} characters (codes; fewer for a shorter run)
 * @param tail - {@link KEPT} codes whose last `kept` are the run's last characters
 * @param kept - how many characters `tail` holds (0 for a run no longer than a sample)
 * @param length - the run's characters, line breaks left out
 */
export function textAlignment(
  codec: Codec,
  head: Uint8Array,
  tail: Uint8Array,
  kept: number,
  length: number,
): number {
  for (let k = 0; k < codec.group; k++) {
    const groups = Math.floor(Math.min(SAMPLE, length - k) / codec.group) * codec.group;
    if (groups > 0 && sampleIsText(codec, head, k, k + groups)) return k;
  }
  for (let k = 0; k < codec.group; k++) {
    // The last whole groups at alignment k, as positions in `tail` (the run's last characters).
    const whole = Math.floor((length - k) / codec.group) * codec.group;
    const from = k + Math.max(0, whole - Math.floor(SAMPLE / codec.group) * codec.group);
    // A short run's end sample is its start sample, already tried.
    if (from === k || whole <= 0) continue;
    const start = from - (length - kept) + (KEPT - kept);
    if (start < KEPT - kept) continue;
    if (sampleIsText(codec, tail, start, k + whole - (length - kept) + (KEPT - kept))) return k;
  }
  return -1;
}
