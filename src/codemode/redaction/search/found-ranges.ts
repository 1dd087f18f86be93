/**
 * The places a search found, put in order and merged, as a sliced pass (../slices.ts): every
 * find of every view, as start and end pairs in the original, becomes the ranges to cut, in
 * order, not overlapping.
 *
 * Why sliced (issue #40): a program that knows a secret can make an API answer a body full of
 * copies of it (4 MiB of the token, or a character a tag view spells everywhere), and every view
 * finds them again: millions of pairs. Sorting them in one call held the host thread for hundreds
 * of milliseconds. Here the pairs are packed one number each, sorted natively in runs of
 * {@link RUN} and merged run into run, pausing when the caller's budget is spent; a few pairs
 * (every ordinary body) are sorted at once, as before.
 */
import { PAUSE, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";

/** Pairs sorted by one native call, at once or as one run of the sliced sort. */
export const RUN = 4_096;

/**
 * Pairs moved per position of the slice budget: a pass of the merge (or the packing, or a run's
 * native sort) spends ~30 ns a pair on an idle core, a position is ~90 (../slices.ts), so a
 * slice of the sort takes about as long as one of a decoding step (at 8 a position, its slices
 * were twice as long: 20–27 ms at load 11).
 */
const PAIRS_PER_POSITION = 3;

/** The largest number a double holds exactly, plus one: packed keys stay below it. */
const EXACT = 2 ** 53;

/**
 * Work the sort and merge did since the isolate started (pairs moved, charged per position):
 * a count that does not depend on the machine, so a test can bound the work between pauses.
 */
export const rangeWork = { positions: 0 };

/** Numbers (half as many pairs) per storage chunk of {@link FoundPairs}. */
const CHUNK = 32_768;

/**
 * The finds of a search as start and end pairs, in chunks (a list of millions grown by doubling
 * copied it whole in one go, tens of milliseconds between two pauses).
 *
 * A find that starts inside the one added last (`last.start <= start < last.end`) is folded into
 * it (its end the larger of the two), so a run of overlapping copies (a secret that repeats a
 * character, in a body that repeats it: a copy at every position) is one pair, not millions.
 * Why the ranges are the same ({@link mergedRanges}'s merge over every pair): say `b` starts
 * inside `a` (`a.start <= b.start < a.end`). In the merge's order every pair from `a` to `b`
 * starts at or after `a.start` and at or before `b.start`, so before `a.end`, and from `a` on
 * the range being built ends at `a.end` or later: `b`, and every pair between, joins `a`'s range,
 * whose end is then at least the larger of the two ends. The folded pair starts where `a` did,
 * ends at that larger end and is not empty, so it starts or joins the same range at the same
 * place (a pair with the same start joins the same range, before or after it) and gives it the
 * same end. Pairs that merely touch (`b.start == a.end`) stay apart: the merge keeps them apart too.
 */
export class FoundPairs {
  /** How many pairs are held. */
  count = 0;
  private chunks: Int32Array[] = [];
  private chunk: Int32Array | undefined;
  private used = 0;

  /** Adds a find (`0 <= start <= end`), folded into the last one where it starts inside it. */
  add(start: number, end: number): void {
    const chunk = this.chunk;
    const used = this.used;
    if (chunk !== undefined && used > 0) {
      const lastStart = chunk[used - 2]!;
      const lastEnd = chunk[used - 1]!;
      if (lastStart <= start && start < lastEnd) {
        if (end > lastEnd) chunk[used - 1] = end;
        return;
      }
    }
    if (chunk === undefined || used === CHUNK) {
      // A full chunk was looked at above; the next add looks at the pair added here.
      if (chunk !== undefined) this.chunks.push(chunk);
      this.chunk = new Int32Array(CHUNK);
      this.used = 0;
    }
    this.chunk![this.used++] = start;
    this.chunk![this.used++] = end;
    this.count++;
  }

  /**
   * Hands each pair to `to` in the order added, chunk by chunk, letting go of each chunk once
   * read; the list is empty afterwards. A sliced pass: pauses as `budget` is spent.
   */
  *drain(to: (start: number, end: number, k: number) => void, budget: SliceBudget): Sliced<void> {
    if (this.chunk !== undefined) this.chunks.push(this.chunk.subarray(0, this.used));
    const chunks = this.chunks;
    this.chunks = [];
    this.chunk = undefined;
    this.used = 0;
    let k = 0;
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!;
      chunks[c] = EMPTY;
      for (let from = 0; from < chunk.length; from += 2 * RUN) {
        const end = Math.min(chunk.length, from + 2 * RUN);
        for (let at = from; at < end; at += 2) to(chunk[at]!, chunk[at + 1]!, k++);
        yield* spend(budget, (end - from) / 2);
      }
    }
    this.count = 0;
  }
}

const EMPTY = new Int32Array(0);

/**
 * The pairs in order (start ascending, the longer first at one start) and merged where they
 * overlap: the ranges to cut, as pairs. The same answer a sort of `[start, end]` tuples by
 * `a[0] - b[0] || b[1] - a[1]` and a merge of each range that starts before the last one ends
 * give (what the search did before): the packed key orders pairs exactly so, and identical pairs
 * are identical keys. The list is drained.
 * @param pairs - the finds (each `0 <= start <= end <= limit`)
 * @param limit - the length of the text they lie in
 * @param budget - the caller's slice budget
 */
export function* mergedRanges(
  pairs: FoundPairs,
  limit: number,
  budget: SliceBudget,
): Sliced<number[]> {
  const n = pairs.count;
  if (n === 0) return [];
  // A key per pair: start × scale + (scale − 1 − end), so keys order by start, then end
  // descending. A text too long for exact keys (64 Mi characters or more, beyond any body's
  // limit) is sorted as tuples, at once.
  let scale = 1;
  while (scale <= limit) scale *= 2;
  if (scale * scale > EXACT) {
    const tuples: [number, number][] = [];
    yield* pairs.drain((start, end) => tuples.push([start, end]), budget);
    return mergeTuples(tuples);
  }
  const keys = new Float64Array(n);
  yield* pairs.drain((start, end, k) => {
    keys[k] = start * scale + (scale - 1 - end);
  }, budget);
  if (n === 1) return [Math.floor(keys[0]! / scale), scale - 1 - (keys[0]! % scale)];
  const sorted = yield* sortKeys(keys, budget);
  const merged: number[] = [];
  let lastStart = Math.floor(sorted[0]! / scale);
  let lastEnd = scale - 1 - (sorted[0]! - lastStart * scale);
  for (let k = 1; k < n; k++) {
    if (k % RUN === 0) yield* spend(budget, RUN);
    const key = sorted[k]!;
    const start = Math.floor(key / scale);
    const end = scale - 1 - (key - start * scale);
    if (start < lastEnd) lastEnd = Math.max(lastEnd, end);
    else {
      merged.push(lastStart, lastEnd);
      lastStart = start;
      lastEnd = end;
    }
  }
  merged.push(lastStart, lastEnd);
  return merged;
}

/** Charges `pairs` moved to the budget; pauses when it is spent. */
function* spend(budget: SliceBudget, pairs: number): Sliced<void> {
  const positions = pairs / PAIRS_PER_POSITION;
  rangeWork.positions += positions;
  budget.left -= positions;
  if (budget.left <= 0) {
    budget.left = SLICE_POSITIONS;
    yield PAUSE;
  }
}

/** Keys sorted: at once when few, else runs sorted natively and merged pairwise in slices. */
function* sortKeys(keys: Float64Array, budget: SliceBudget): Sliced<Float64Array> {
  const n = keys.length;
  for (let from = 0; from < n; from += RUN) {
    keys.subarray(from, Math.min(n, from + RUN)).sort();
    if (n > RUN) yield* spend(budget, Math.min(RUN, n - from));
  }
  let source: Float64Array = keys;
  let target: Float64Array = new Float64Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(n, left + width);
      const right = Math.min(n, left + 2 * width);
      let [i, j, out] = [left, middle, left];
      while (out < right) {
        // A turn of at most RUN pairs between looks at the budget.
        const turnEnd = Math.min(right, out + RUN);
        while (out < turnEnd)
          target[out++] =
            j >= right || (i < middle && source[i]! <= source[j]!) ? source[i++]! : source[j++]!;
        yield* spend(budget, RUN);
      }
    }
    [source, target] = [target, source];
  }
  return source;
}

/** The old way, for texts too long for exact keys: tuples sorted and merged at once. */
export function mergeTuples(ranges: [number, number][]): number[] {
  if (ranges.length < 2) return ranges.flat();
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [ranges[0]!];
  for (const [start, end] of ranges.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged.flat();
}
