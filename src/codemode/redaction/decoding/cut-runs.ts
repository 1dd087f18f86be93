/**
 * Cut runs: a run cut into pieces of its length joined by single spaces (a copy wrapped at a
 * width, `fold -w 39` and spaces), the last piece as long or shorter, is read whole too by the
 * run-decoded view (./run-decoded-view.ts), beside each piece's own reading: a copy's bytes lie
 * at other alignments in each piece, so a copy under three run encodings cut into 39-character
 * pieces slipped for every secret length.
 *
 * What keeps it linear and small:
 * - each piece is looked at by one join at most: the runs inside a cut already read join
 *   nothing (a body of spaced runs of one length joined each run to the body's end: quadratic);
 * - a piece's own reading, where it reads bytes the whole run's reading holds (its groups are
 *   the whole run's groups), is not kept (attack9): a body of cut runs of cut runs decoded to 1.5
 *   times its length at each of the four levels, 3.7 times main's CPU per MB and twice its
 *   memory.
 */
import { PAUSE, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";
import { keepShape } from "../kept-shapes";
import { runWork } from "./run-characters";
import { BASE64, CLASSES, type Codec, type RunReading } from "./run-codecs";

/** What reads the runs of a text into a view (./run-decoded-view.ts), as a cut run needs it. */
export interface RunReader {
  /**
   * Reads the run in `[start, end)` (`count` characters of the alphabets `classes`) as a
   * segment of the view with the first codec that reads it as text; its reading, or undefined
   * when none does.
   */
  read(start: number, end: number, count: number, classes: number): Sliced<RunReading | undefined>;
  /** Drops the reading made before the last one from the view. */
  dropBeforeLast(): void;
}

/** The cut runs of one text read whole so far, in the order its runs are read. */
export class CutRuns {
  /** Where the last cut run read whole ends. */
  private joinedUntil = 0;
  /** The last cut run read whole: where it starts, its pieces' width, and how it was read. */
  private join: { start: number; width: number; codec: Codec; k: number } | undefined;

  /** @param text - the text whose runs are read */
  constructor(private readonly text: string) {}

  /**
   * For a run in `[start, end)` inside the last cut run read whole (a run reaching past it
   * holds more): whether its reading with a codec at an alignment reads bytes the whole run's
   * reading holds, so it need not be read. Undefined for any other run.
   * @param start - where the run starts
   * @param end - where it ends
   */
  heldTest(start: number, end: number): ((codec: Codec, k: number) => boolean) | undefined {
    return start < this.joinedUntil && end <= this.joinedUntil ? this.inJoin(start) : undefined;
  }

  /**
   * After a run's own reading: when the run is the first piece of a cut run (no line break
   * inside it, single spaces and pieces of its length after it), reads the cut run whole, and
   * drops the piece's own reading if the whole run's reading holds its bytes. The pieces after
   * it are looked at once more here, charged to `budget` (a sliced pass).
   * @param reader - the view being made
   * @param start - where the run starts
   * @param end - where it ends
   * @param count - its characters, line breaks left out
   * @param classes - the alphabets all of them belong to
   * @param piece - the run's own reading (undefined: it was not read)
   * @param budget - the pass's slice budget
   */
  *readWhole(
    reader: RunReader,
    start: number,
    end: number,
    count: number,
    classes: number,
    piece: RunReading | undefined,
    budget: SliceBudget,
  ): Sliced<void> {
    if (count !== end - start || end < this.joinedUntil) return;
    const joined = yield* piecesAfter(this.text, end, count, budget);
    if (joined === undefined) return;
    this.joinedUntil = joined.end;
    const whole = yield* reader.read(
      start,
      joined.end,
      count + joined.count,
      classes & joined.classes,
    );
    if (!whole) return;
    this.join = { start, width: count, codec: whole.codec, k: whole.k };
    if (piece && this.inJoin(start)(piece.codec, piece.k)) reader.dropBeforeLast();
  }

  /**
   * Whether a piece of the last cut run read whole starting at `start`, read with `codec` at
   * `k`, reads bytes the whole run's reading holds (its groups are the whole run's groups).
   */
  private inJoin(start: number): (codec: Codec, k: number) => boolean {
    return (codec, k) => {
      const { join } = this;
      if (!join || codec !== join.codec) return false;
      const offset = ((start - join.start) / (join.width + 1)) * join.width;
      return (offset + k - join.k) % codec.group === 0;
    };
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
keepShape(new CutRuns(""));

/**
 * The pieces after a run of `width` characters that ends at `at`: each a single space and then
 * `width` characters of the base64 alphabet, the last one `width` or fewer. Their end, their
 * characters and the alphabets all of them belong to; undefined when none follows. A sliced
 * pass, a unit of `budget` per position: the pieces can be the whole body.
 */
function* piecesAfter(
  text: string,
  at: number,
  width: number,
  budget: SliceBudget,
): Sliced<{ end: number; count: number; classes: number } | undefined> {
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
    budget.left -= piece + 1;
    runWork.positions += piece + 1;
    if (piece < width) break;
    if (budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return count === 0 ? undefined : { end: at, count, classes };
}
