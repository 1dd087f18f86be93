/**
 * The map of one view back to the text it was made from: the replaced sequences, in order, kept
 * as a byte stream ({@link SequenceMap}). The view builder (view-builder.ts) writes it; origins,
 * the next decoding step and the checks read it.
 */
import { keepShape } from "./kept-shapes";

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
    let lo = 0;
    let hi = checks - 1;
    let found = -1;
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
      this.atOut = this.atOutLength = this.atIn = this.atInLength = 0;
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
    // Plain variables, not a destructured array: this runs once per record read, and the arrays
    // were ~70 MB of young garbage per 4 MiB random body, each MB of it paid in scavenges
    // (bench/README.md, "Random bytes in the real host: where the time goes").
    let gap = 0;
    let outLength = 0;
    let inLength = 0;
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

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (./kept-shapes.ts).
keepShape(new SequenceMap());

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
  let value = 0;
  let scale = 1;
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
