/**
 * Building one view of a text (a decoding step, NULs dropped, a normalised spelling): the view's
 * text and the map from each of its characters back to the original, so a secret found in the
 * view is cut out of the original exactly where its encoded form was.
 *
 * Why this shape: a hostile program chooses what an echoing API returns, so a body can be nothing
 * but sequences (`%25%25%25…`, 1.3 million in 4 MB). Building the view by `+=` made one string
 * per sequence, and the map held four numbers per sequence in a doubling array: 9–34 s of the
 * host's thread and ~21× the body's bytes for a few MB. Here the text goes into one buffer of
 * code units (copied spans character by character) and is made a string once; the map keeps
 * per sequence its output start (4 bytes) and its two lengths (2 bytes), and derives input
 * positions from a running sum kept every {@link SUM_EVERY} sequences.
 */

/** Where position `i` of a view lies in its original: as the start or the end of a range. */
export type Origin = (i: number, end: boolean) => number;

/** Sequences per stored running sum: a lookup adds at most this many lengths. */
const SUM_EVERY = 32;
/** Sequences per storage block. */
const BLOCK_BITS = 13;
const BLOCK_SIZE = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK_SIZE - 1;
/** Lengths up to these fit in the packed 16 bits (6 for the output, 10 for the input). */
const MAX_OUT = 63;
const MAX_IN = 1023;

/**
 * The replaced sequences of one view, in order: output start and both lengths. Answers where a
 * view position lies in the text the view was made from.
 */
export class SequenceMap {
  /** How many sequences were replaced. */
  count = 0;
  // Fixed-size blocks, not one doubling array: no copies while growing and no slack after.
  private starts: Int32Array[] = [];
  private lengths: Uint16Array[] = [];
  private sums: number[] = [];
  private sum = 0;
  /** Lengths that do not fit the packed form (a NUL run, an expansion), by sequence. */
  private long: Map<number, [number, number]> | undefined;

  /** Adds a sequence: `inLength` input characters became `outLength` at `outStart`. */
  add(outStart: number, outLength: number, inLength: number): void {
    const t = this.count;
    const [block, at] = [t >>> BLOCK_BITS, t & BLOCK_MASK];
    if (at === 0) {
      this.starts.push(new Int32Array(BLOCK_SIZE));
      this.lengths.push(new Uint16Array(BLOCK_SIZE));
    }
    if (t % SUM_EVERY === 0) this.sums.push(this.sum);
    this.starts[block]![at] = outStart;
    if (outLength <= MAX_OUT && inLength <= MAX_IN)
      this.lengths[block]![at] = (outLength << 10) | inLength;
    else {
      this.lengths[block]![at] = 0xffff;
      (this.long ??= new Map()).set(t, [outLength, inLength]);
    }
    this.sum += inLength - outLength;
    this.count = t + 1;
  }

  /** The output start of sequence `t`. */
  outStart(t: number): number {
    return this.starts[t >>> BLOCK_BITS]![t & BLOCK_MASK]!;
  }

  /** The output length of sequence `t`. */
  outLength(t: number): number {
    const packed = this.lengths[t >>> BLOCK_BITS]![t & BLOCK_MASK]!;
    return packed === 0xffff ? this.long!.get(t)![0] : packed >> 10;
  }

  private inLength(t: number): number {
    const packed = this.lengths[t >>> BLOCK_BITS]![t & BLOCK_MASK]!;
    return packed === 0xffff ? this.long!.get(t)![1] : packed & MAX_IN;
  }

  /** The input start of sequence `t`: its output start plus what earlier sequences shrank by. */
  private inStart(t: number): number {
    let shrink = this.sums[Math.floor(t / SUM_EVERY)]!;
    for (let u = t - (t % SUM_EVERY); u < t; u++) shrink += this.inLength(u) - this.outLength(u);
    return this.outStart(t) + shrink;
  }

  /** The map as a function (see {@link Origin}). */
  origin(): Origin {
    return (i, end) => {
      // The last sequence starting at or before i in the output.
      let [lo, hi] = [0, this.count - 1];
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (this.outStart(mid) <= i) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      // Sequences that decode to nothing (NUL runs, soft line breaks) at i: a start lies after
      // them, an end before them.
      if (end)
        while (found > 0 && this.outStart(found - 1) === i && this.outLength(found - 1) === 0)
          found--;
      if (found < 0) return i;
      const outStart = this.outStart(found);
      const outLength = this.outLength(found);
      const inStart = this.inStart(found);
      const inLength = this.inLength(found);
      // Inside what one sequence decoded to: a start is the sequence's start, an end its end.
      if (i === outStart && (end || outLength > 0)) return inStart;
      if (i < outStart + outLength) return end ? inStart + inLength : inStart;
      return inStart + inLength + (i - outStart - outLength);
    };
  }
}

/**
 * Builds a view left to right: what is not replaced is copied as it is.
 */
export class ViewBuilder {
  /** The sequences replaced so far. */
  readonly map = new SequenceMap();
  // What is built so far: finished pieces (slices of the text, or flushed buffer contents), then
  // the buffer. One byte per character while every character fits, two once one does not.
  private pieces = "";
  private out: Uint8Array | Uint16Array | undefined;
  private length = 0;
  private copied = 0;
  private total = 0;

  /** @param text - the text the view is made from */
  constructor(private readonly text: string) {}

  /** Where the next replacement may start at the earliest (the end of the last one). */
  get consumed(): number {
    return this.copied;
  }

  /**
   * Replaces `text[at, at + inLength)` (at or after the last replacement) by `decoded`.
   * @param at - where the sequence starts in the text
   * @param inLength - its length
   * @param decoded - what it becomes (may be empty)
   */
  replace(at: number, inLength: number, decoded: string): void {
    this.copy(at);
    this.map.add(this.total, decoded.length, inLength);
    this.write(decoded, 0, decoded.length);
    this.copied = at + inLength;
  }

  /**
   * Like {@link ViewBuilder.replace} with one character given by its code point (no string made
   * per sequence: a list of a million numbers is a million sequences).
   */
  replaceCode(at: number, inLength: number, code: number): void {
    if (code > 0xffff) {
      this.replace(at, inLength, String.fromCodePoint(code));
      return;
    }
    this.copy(at);
    this.map.add(this.total, 1, inLength);
    let out = this.reserve(1);
    if (code > 0xff && out instanceof Uint8Array) out = this.widen();
    out[this.length++] = code;
    this.total++;
    this.copied = at + inLength;
  }

  /** The view's text, or undefined when nothing was replaced. */
  finish(): string | undefined {
    if (this.map.count === 0) return undefined;
    this.copy(this.text.length);
    this.flush();
    const result = this.pieces;
    this.pieces = "";
    // Flattened once (character access on a rope is slow; V8 flattens a regular expression's
    // subject in place).
    /\0/.test(result);
    return result;
  }

  /**
   * Copies the text up to `to` as it is: a long span as a slice of the text (no per-character
   * work: ordinary text changes in few places), a short one into the buffer (a text of adjacent
   * sequences would otherwise make a piece per sequence).
   */
  private copy(to: number): void {
    if (to - this.copied >= LONG_SPAN) {
      this.flush();
      this.pieces += this.text.slice(this.copied, to);
      this.total += to - this.copied;
    } else this.write(this.text, this.copied, to);
    this.copied = to;
  }

  /** Moves the buffer's contents to the pieces. */
  private flush(): void {
    const { out, length } = this;
    if (!out || length === 0) return;
    // ASCII bytes (what a flood of escapes decodes to) become one flat string natively: chunks
    // joined and flattened held the view's text three times over at its end (issue #40).
    if (out instanceof Uint8Array && isAscii(out, length)) {
      this.pieces += asciiDecoder.decode(out.subarray(0, length));
      this.length = 0;
      return;
    }
    for (let k = 0; k < length; k += 8192)
      this.pieces += String.fromCharCode.apply(
        null,
        out.subarray(k, Math.min(length, k + 8192)) as unknown as number[],
      );
    this.length = 0;
  }

  private write(from: string, start: number, end: number): void {
    let out = this.reserve(end - start);
    let length = this.length;
    for (let k = start; k < end; k++) {
      const code = from.charCodeAt(k);
      if (code > 0xff && out instanceof Uint8Array) {
        this.length = length;
        out = this.widen();
      }
      out[length++] = code;
    }
    this.total += length - this.length;
    this.length = length;
  }

  private reserve(more: number): Uint8Array | Uint16Array {
    const need = this.length + more;
    if (!this.out) this.out = new Uint8Array(Math.max(need, 1024));
    else if (need > this.out.length) {
      // Grown to the size the whole view is heading for (its output so far per input character
      // read, times the text, an eighth more), not doubled: doubling left as much garbage as
      // the final buffer, for a flood of escapes megabytes per step (issue #40).
      const projected = Math.ceil(
        ((this.total + more) / Math.max(1, this.copied)) * this.text.length * 1.125,
      );
      const size = Math.max(need + 1024, Math.min(this.out.length * 2, projected));
      const grown = this.out instanceof Uint8Array ? new Uint8Array(size) : new Uint16Array(size);
      grown.set(this.out.subarray(0, this.length));
      this.out = grown;
    }
    return this.out;
  }

  private widen(): Uint16Array {
    const wide = new Uint16Array(this.out!.length);
    wide.set(this.out!.subarray(0, this.length));
    this.out = wide;
    return wide;
  }
}

const asciiDecoder = new TextDecoder();

/** Whether the first `length` bytes are all below 0x80 (so UTF-8 reads each as itself). */
function isAscii(bytes: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** A copied span at least this long is kept as a slice of the text, not copied. */
const LONG_SPAN = 64;

/**
 * The origin of a view made from another view: through the local map, then the outer one.
 * @param outer - the origin of the view it was made from (null: the original itself)
 * @param local - the map of the step that made it
 */
export function compose(outer: Origin | null, local: Origin): Origin {
  return outer ? (i, end) => outer(local(i, end), end) : local;
}

/** A text and where its characters came from in the original. */
export interface View {
  readonly text: string;
  /** The offset in the original of position `i` of `text` (`text.length` maps to the end). */
  readonly origin: Origin | null;
  /**
   * For a decoded view, the sequences its step replaced: their outputs are the characters it
   * produced, and a sequence for the next step must include one of them (any other was already
   * there to decode).
   */
  readonly changed?: SequenceMap;
  /** For a decoded view, the families of the digit sequences its step decoded (bits). */
  readonly digitFamilies?: number;
}
