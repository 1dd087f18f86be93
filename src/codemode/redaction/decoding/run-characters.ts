/**
 * A run's characters in the text it lies in (./run-decoded-view.ts), read in slices: what separates them (line
 * breaks, `\n` and `\r` escapes, and the spaces of a cut run, ./cut-runs.ts) is left out, and
 * where each character lies is kept, so a copy found in a run's decoding is cut out of the
 * characters that hold its bytes.
 */
import { PAUSE, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";
import { BASE64, CLASSES } from "./run-codecs";

/**
 * How many characters a line break inside a run takes at `at` (0: none): a line break, or a
 * `\n` or `\r` escape (base64 in lines, in a JSON string). A space ends a run: words beside a
 * run on its line are not glued to it.
 * @param text - the text
 * @param at - a position in it
 */
export function separatorAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 10 || c === 13) return 1;
  if (c !== 92) return 0;
  const next = text.charCodeAt(at + 1);
  return next === 110 || next === 114 ? 2 : 0;
}

/**
 * Whether the character at `at` is the letter of a `\n` or `\r` escape (a line break).
 * @param text - the text
 * @param at - a position in it
 */
export const escapeLetter = (text: string, at: number): boolean => {
  const c = text.charCodeAt(at);
  return (c === 110 || c === 114) && text.charCodeAt(at - 1) === 92;
};

/** Characters of a run between two of the positions its map keeps. */
const STRIDE = 256;

/**
 * Where character `c` of a run lies in the text: from the position kept before it, on.
 * @param text - the text the run lies in
 * @param checkpoints - the run's map ({@link runCharactersInSlices})
 * @param c - a character of the run, counted from its first (separators left out)
 */
export function characterAt(text: string, checkpoints: Int32Array, c: number): number {
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
 * Characters of runs the run-decoded view has read so far (a run's end sought, its characters
 * copied, its groups decoded, the pieces of a cut run looked at): tests count them between
 * pauses (issue #40: a run as long as the body was read between two of them).
 */
export const runWork = { positions: 0 };

/** A run's characters (codes, separators left out) and its map ({@link characterAt}). */
export interface RunCharacters {
  readonly content: Uint8Array;
  readonly checkpoints: Int32Array;
}

/**
 * A run's characters, line breaks (and the spaces of a cut run) left out, and where every
 * {@link STRIDE}th of them lies (`checkpoints`, read by {@link characterAt}): a sliced pass
 * (../slices.ts), a position of the text per unit of `budget`, since a run can be the whole body
 * (4 MB of base64 was copied between two pauses). The characters go into one byte array, and the
 * map keeps a position per 256 characters, not per line: a slice and two numbers per line took
 * ~140 MB for a 1 MB body with a line break after every character (attack5).
 * @param text - the text
 * @param start - where the run starts
 * @param end - where it ends
 * @param budget - the pass's slice budget
 */
export function* runCharactersInSlices(
  text: string,
  start: number,
  end: number,
  budget: SliceBudget,
): Sliced<RunCharacters> {
  const content = new Uint8Array(end - start);
  const checkpoints = new Int32Array(Math.ceil((end - start) / STRIDE) + 1);
  let length = 0;
  for (let i = start; i < end;) {
    const from = i;
    const stop = Math.min(end, i + Math.max(1, budget.left));
    while (i < stop) {
      const skip = text.charCodeAt(i) === 32 ? 1 : separatorAt(text, i);
      if (skip > 0) {
        i += skip;
        continue;
      }
      if (length % STRIDE === 0) checkpoints[length / STRIDE] = i;
      content[length++] = text.charCodeAt(i++);
    }
    budget.left -= i - from;
    runWork.positions += i - from;
    if (i < end && budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return {
    content: content.subarray(0, length),
    checkpoints: checkpoints.slice(0, Math.ceil(length / STRIDE)),
  };
}

/**
 * Copies the first characters of a run, line breaks left out, into `head` (as many as it holds):
 * codes into a buffer, where strings grown a character at a time were most of an ordinary
 * body's cost. A sliced pass: a run of a few characters then millions of line breaks is sought
 * across all of them.
 * @param text - the text
 * @param start - where the run starts
 * @param end - where it ends
 * @param head - the buffer
 * @param budget - the pass's slice budget
 */
export function* firstCharacters(
  text: string,
  start: number,
  end: number,
  head: Uint8Array,
  budget: SliceBudget,
): Sliced<void> {
  let count = 0;
  for (let i = start; i < end && count < head.length;) {
    const [from, stop] = [i, Math.min(end, i + Math.max(1, budget.left))];
    for (; i < stop && count < head.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 && (CLASSES[c]! & BASE64) !== 0 && !escapeLetter(text, i)) head[count++] = c;
    }
    budget.left -= i - from;
    runWork.positions += i - from;
    if (i < end && count < head.length && budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
}

/**
 * Copies the last characters of a run, separators left out, to the end of `tail` (as many as it
 * holds), and says how many there are: a sliced pass, as {@link firstCharacters}.
 * @param text - the text
 * @param start - where the run starts
 * @param end - where it ends
 * @param tail - the buffer
 * @param budget - the pass's slice budget
 */
export function* lastCharacters(
  text: string,
  start: number,
  end: number,
  tail: Uint8Array,
  budget: SliceBudget,
): Sliced<number> {
  let count = 0;
  for (let i = end - 1; i >= start && count < tail.length;) {
    const [from, stop] = [i, Math.max(start - 1, i - Math.max(1, budget.left))];
    for (; i > stop && count < tail.length; i--) {
      const c = text.charCodeAt(i);
      // An `n` of a `\n` escape is a separator, not a character of the run.
      if ((c === 110 || c === 114) && text.charCodeAt(i - 1) === 92) i--;
      else if (c < 128 && (CLASSES[c]! & BASE64) !== 0) tail[tail.length - ++count] = c;
    }
    budget.left -= from - i;
    runWork.positions += from - i;
    if (i >= start && count < tail.length && budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return count;
}
