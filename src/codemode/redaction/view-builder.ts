/**
 * Building one view of a text (a decoding step, NULs dropped, a normalised spelling): the view's
 * text and the map from each of its characters back to the original, so a secret found in the
 * view is cut out of the original exactly where its encoded form was.
 *
 * Why this shape: a hostile program chooses what an echoing API returns, so a body can be nothing
 * but sequences (`%25%25%25…`, 1.3 million in 4 MB). Building the view by `+=` made one string
 * per sequence, and the map held four numbers per sequence in a doubling array: 9–34 s of the
 * host's thread and ~21× the body's bytes for a few MB. Here the text goes into one buffer of
 * code units (copied spans character by character) and is made a string once; the map keeps a
 * record of one byte per sequence in the common case ({@link SequenceMap}).
 */

/** Where position `i` of a view lies in its original: as the start or the end of a range. */
export type Origin = (i: number, end: boolean) => number;

/** Sequences per checkpoint (a power of two): a random lookup decodes at most this many records. */
const CHECK_EVERY = 32;
/** Bytes per full storage block (records never straddle two). */
const BLOCK_BITS = 16;
const BLOCK_BYTES = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK_BYTES - 1;
/** The longest record: a lead byte and three 5-byte varints. */
const MAX_RECORD = 16;
/** A record's lead byte: this one is followed by three varints. */
const LONG = 0x80;
/** A lead byte that ends a full block early: the next record starts the next block. */
const SKIP = 0xff;
/**
 * What a map starts with, shared by every map: nothing can be written into an empty array, and
 * the first record replaces it. A typed array per field per map was ~11 % of the CPU of
 * redacting a small upstream result (every view of every value makes a map; issue #43).
 */
const NO_BYTES = new Uint8Array(0);
const NO_CHECKS = new Int32Array(0);

/**
 * The replaced sequences of one view, in order: output start and both lengths. Answers where a
 * view position lies in the text the view was made from.
 *
 * Stored as a byte stream (issue #40: a body of escapes is a million sequences a view, and the
 * map was 6 bytes each, more than the view's text): a record per sequence holds the number of
 * characters copied since the previous one (its gap: the same in input and output) and its two
 * lengths; one byte when the gap is 0–3, the output 0–1 characters and the input 1–16 (every
 * sequence of a flood of escapes, every list item), else a lead byte and three varints. Every
 * {@link CHECK_EVERY} sequences a checkpoint keeps the absolute positions. Reading in order (what
 * the next decoding step and the checks do) decodes each record once; a random lookup (an origin,
 * only when a copy is found) starts from a checkpoint.
 */
export class SequenceMap {
  /** How many sequences were replaced. */
  count = 0;
  // Full blocks of BLOCK_BYTES, then the block being written (grown by doubling up to
  // BLOCK_BYTES: a map of three sequences needs no 64 KiB).
  private blocks: Uint8Array[] = [];
  private block: Uint8Array = NO_BYTES;
  private used = 0;
  // Per checkpoint: where its record starts (block index × BLOCK_BYTES + offset), its output
  // start and its input start.
  private checks: Int32Array = NO_CHECKS;
  private outEnd = 0;
  private inEnd = 0;
  // The record read last (reading in order decodes each record once).
  private at = -1;
  // Where the record after it starts: a block and an offset in it.
  private readBlock: Uint8Array = NO_BYTES;
  private readIndex = 0;
  private readAt = 0;
  private atOut = 0;
  private atOutLength = 0;
  private atIn = 0;
  private atInLength = 0;

  /** Adds a sequence: `inLength` input characters became `outLength` at `outStart`. */
  add(outStart: number, outLength: number, inLength: number): void {
    const gap = outStart - this.outEnd;
    if (gap < 0) throw new RangeError("sequences must be added in order");
    const t = this.count;
    if (this.used + MAX_RECORD > this.block.length) this.grow();
    const pos = this.blocks.length * BLOCK_BYTES + this.used;
    if ((t & (CHECK_EVERY - 1)) === 0) {
      const k = (t / CHECK_EVERY) * 3;
      if (k + 3 > this.checks.length) {
        const grown = new Int32Array(Math.max(48, this.checks.length * 2));
        grown.set(this.checks);
        this.checks = grown;
      }
      this.checks[k] = pos;
      this.checks[k + 1] = outStart;
      this.checks[k + 2] = this.inEnd + gap;
    }
    const block = this.block;
    if (gap <= 3 && outLength <= 1 && inLength >= 1 && inLength <= 16)
      block[this.used++] = (gap << 5) | (outLength << 4) | (inLength - 1);
    else {
      block[this.used++] = LONG;
      this.used = writeVarint(block, this.used, gap);
      this.used = writeVarint(block, this.used, outLength);
      this.used = writeVarint(block, this.used, inLength);
    }
    this.inEnd += gap + inLength;
    this.outEnd = outStart + outLength;
    this.count = t + 1;
  }

  // What mark() kept (one mark at a time; numbers, not an object: a map is made per view).
  private markCount = 0;
  private markUsed = 0;
  private markBlocks = 0;
  private markOutEnd = 0;
  private markInEnd = 0;

  /** Keeps where the map ends, for {@link SequenceMap.rollback}. */
  mark(): void {
    this.markCount = this.count;
    this.markUsed = this.used;
    this.markBlocks = this.blocks.length;
    this.markOutEnd = this.outEnd;
    this.markInEnd = this.inEnd;
  }

  /**
   * Takes back every sequence added since {@link SequenceMap.mark}. Records are only appended,
   * so the bytes before the mark are untouched: a block grown since holds them as its prefix,
   * and a block put aside since is the one written at the mark (the next records overwrite the
   * rest, its `SKIP` byte too). Checkpoints past the mark are written again as sequences are.
   */
  rollback(): void {
    if (this.blocks.length > this.markBlocks) {
      this.block = this.blocks[this.markBlocks]!;
      this.blocks.length = this.markBlocks;
    }
    this.used = this.markUsed;
    this.count = this.markCount;
    this.outEnd = this.markOutEnd;
    this.inEnd = this.markInEnd;
    // The record read last may be gone: the next read starts from a checkpoint.
    this.at = -1;
  }

  /** The output start of sequence `t`. */
  outStart(t: number): number {
    this.seek(t);
    return this.atOut;
  }

  /** The output length of sequence `t`. */
  outLength(t: number): number {
    this.seek(t);
    return this.atOutLength;
  }

  /** The map as a function (see {@link Origin}). */
  origin(): Origin {
    return (i, end) => {
      let found = this.lastStartingAt(i);
      // Sequences that decode to nothing (NUL runs, soft line breaks) at i: a start lies after
      // them, an end before them.
      if (end)
        while (found > 0 && this.outStart(found - 1) === i && this.outLength(found - 1) === 0)
          found--;
      if (found < 0) return i;
      this.seek(found);
      const { atOut: outStart, atOutLength: outLength, atIn: inStart, atInLength: inLength } = this;
      // Inside what one sequence decoded to: a start is the sequence's start, an end its end.
      if (i === outStart && (end || outLength > 0)) return inStart;
      if (i < outStart + outLength) return end ? inStart + inLength : inStart;
      return inStart + inLength + (i - outStart - outLength);
    };
  }

  /** The last sequence starting at or before output position `i` (-1: none). */
  private lastStartingAt(i: number): number {
    const checks = Math.ceil(this.count / CHECK_EVERY);
    let [lo, hi, found] = [0, checks - 1, -1];
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.checks[mid * 3 + 1]! <= i) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return -1;
    let t = found * CHECK_EVERY;
    while (t + 1 < this.count && this.outStart(t + 1) <= i) t++;
    return t;
  }

  /** Decodes record `t` into the `at…` fields. */
  private seek(t: number): void {
    if (t === this.at) return;
    // Forward from the record read last when it lies after t's checkpoint, else from that.
    if (!(this.at >= 0 && t > this.at && this.at >= t - (t % CHECK_EVERY))) {
      const k = Math.floor(t / CHECK_EVERY);
      const pos = this.checks[k * 3]!;
      this.readIndex = pos >>> BLOCK_BITS;
      this.readBlock = this.blockAt(this.readIndex);
      this.readAt = pos & BLOCK_MASK;
      // The record before the checkpoint's ended where the checkpoint's starts, less its gap.
      [this.atOut, this.atOutLength, this.atIn, this.atInLength] = [0, 0, 0, 0];
      this.at = k * CHECK_EVERY - 1;
      this.next(this.checks[k * 3 + 1]!, this.checks[k * 3 + 2]!);
    }
    while (this.at < t) this.next();
  }

  /**
   * Decodes the record after the one read last into the `at…` fields (in order: each record is
   * decoded once). At a checkpoint, `out` and `inn` are its own starts.
   */
  private next(out = -1, inn = -1): void {
    let block = this.readBlock;
    let p = this.readAt;
    if (p >= block.length || block[p] === SKIP) {
      // Past the last record of a full block: the next one starts the next block.
      block = this.readBlock = this.blockAt(++this.readIndex);
      p = 0;
    }
    const lead = block[p++]!;
    let [gap, outLength, inLength] = [0, 0, 0];
    if (lead < LONG) {
      gap = lead >> 5;
      outLength = (lead >> 4) & 1;
      inLength = (lead & 15) + 1;
    } else {
      gap = readVarint(block, p);
      outLength = readVarint(block, varintEnd);
      inLength = readVarint(block, varintEnd);
      p = varintEnd;
    }
    this.atOut = out >= 0 ? out : this.atOut + this.atOutLength + gap;
    this.atIn = inn >= 0 ? inn : this.atIn + this.atInLength + gap;
    this.atOutLength = outLength;
    this.atInLength = inLength;
    this.readAt = p;
    this.at++;
  }

  /** Storage block `index` (full ones, then the one being written). */
  private blockAt(index: number): Uint8Array {
    return index < this.blocks.length ? this.blocks[index]! : this.block;
  }

  /** Room for a record: the block doubled, or (full) put aside for a new one. */
  private grow(): void {
    // The block read last may be replaced: the next read starts from a checkpoint.
    this.at = -1;
    if (this.block.length >= BLOCK_BYTES) {
      if (this.used < BLOCK_BYTES) this.block[this.used] = SKIP;
      this.blocks.push(this.block);
      this.block = new Uint8Array(BLOCK_BYTES);
      this.used = 0;
      return;
    }
    const grown = new Uint8Array(Math.min(BLOCK_BYTES, Math.max(64, this.block.length * 2)));
    grown.set(this.block.subarray(0, this.used));
    this.block = grown;
  }
}

/** Writes `value` (≥ 0) as a little-endian base-128 varint at `at`; returns where it ends. */
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  bytes[at++] = value;
  return at;
}

/** Where the varint {@link readVarint} read last ends (no array per record read). */
let varintEnd = 0;

/** The varint at `at` (its end goes to varintEnd). */
function readVarint(bytes: Uint8Array, at: number): number {
  let [value, scale] = [0, 1];
  for (;;) {
    const b = bytes[at++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) {
      varintEnd = at;
      return value;
    }
    scale *= 128;
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

  // What mark() kept (see there).
  private markAt = 0;
  private markLength = 0;
  private markTotal = 0;

  /**
   * Marks `at` (at or after the last replacement) as a point {@link ViewBuilder.rollback} can
   * go back to. The text up to it is copied first, so what the replacements after it write
   * stays in the buffer: only a copied span of {@link LONG_SPAN} or more moves the buffer into
   * the pieces, and replacements that follow each other copy nothing. The lists view reads a run
   * with one reading and takes it back in the rare case another reading of the same run proves
   * longer (./spellings/lists-view.ts): one pass over a run instead of a count and a read.
   * @param at - where the replacements that may be taken back start
   */
  mark(at: number): void {
    this.copy(at);
    this.markAt = at;
    this.markLength = this.length;
    this.markTotal = this.total;
    this.map.mark();
  }

  /**
   * Takes back every replacement made since {@link ViewBuilder.mark}. Only for replacements that
   * followed each other from the mark (each starting where the one before ended): the buffer
   * then holds what was built before the mark where it was (maybe grown or widened, never
   * flushed), and the pieces are as they were.
   */
  rollback(): void {
    this.length = this.markLength;
    this.total = this.markTotal;
    this.copied = this.markAt;
    this.map.rollback();
  }

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
    // Nothing to copy between items that follow each other (every item of a list but the first):
    // a list of a million numbers calls this a million times per view (issue #40).
    if (at !== this.copied) this.copy(at);
    this.map.add(this.total, 1, inLength);
    let out = this.out;
    if (out === undefined || this.length >= out.length) out = this.reserve(1);
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
    // Code units (CJK text) through the UTF-16 decoder: one flat string in half the time of
    // joined `fromCharCode` chunks. It reads a lone surrogate as U+FFFD, so a result holding
    // U+FFFD is made the old way (the buffer may have held one).
    if (out instanceof Uint16Array) {
      const wide = utf16Decoder();
      const decoded = wide?.decode(new Uint8Array(out.buffer, out.byteOffset, length * 2));
      if (decoded !== undefined && !decoded.includes("\ufffd")) {
        this.pieces += decoded;
        this.length = 0;
        return;
      }
    }
    for (let k = 0; k < length; k += 8192)
      this.pieces += String.fromCharCode.apply(
        null,
        out.subarray(k, Math.min(length, k + 8192)) as unknown as number[],
      );
    this.length = 0;
  }

  private write(from: string, start: number, end: number): void {
    const out = this.reserve(end - start);
    let length = this.length;
    let k = start;
    // Two loops, each over one kind of buffer (a check of the buffer's kind per character was
    // a tenth of a CJK text's compaction).
    if (out instanceof Uint8Array) {
      for (; k < end; k++) {
        const code = from.charCodeAt(k);
        if (code > 0xff) break;
        out[length++] = code;
      }
      if (k === end) {
        this.total += length - this.length;
        this.length = length;
        return;
      }
      // What this call wrote so far counts before the buffer is widened (it was lost: a
      // replacement like `¼` → `1⁄4` left every later position one short).
      this.total += length - this.length;
      this.length = length;
      this.widen();
    }
    const wide = this.out as Uint16Array;
    for (; k < end; k++) wide[length++] = from.charCodeAt(k);
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
let utf16: TextDecoder | null | undefined;

/** A UTF-16LE decoder that keeps a leading U+FEFF, or null where the runtime has none. */
function utf16Decoder(): TextDecoder | null {
  if (utf16 === undefined) {
    try {
      utf16 = new TextDecoder("utf-16le", { fatal: false, ignoreBOM: true });
    } catch {
      utf16 = null;
    }
  }
  return utf16;
}

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
  /**
   * For a view made by no step that only dropped characters (the NUL-free view): where, as
   * sequences that decode to nothing. Not `changed`: the next step reads all of such a view.
   */
  readonly dropped?: SequenceMap;
  /** For a decoded view, the families of the digit sequences its step decoded (bits). */
  readonly digitFamilies?: number;
}
