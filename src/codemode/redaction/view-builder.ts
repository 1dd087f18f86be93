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
import { SequenceMap, type Origin } from "./sequence-map";
import { keepShape } from "./kept-shapes";

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

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (./kept-shapes.ts).
keepShape(new ViewBuilder(""));

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
