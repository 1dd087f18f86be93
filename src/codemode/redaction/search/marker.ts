/**
 * The marker that replaces a secret, and cutting found ranges out of text and bytes. The marker
 * is laid out like what it replaces: a secret found with NULs between its characters (UTF-16 or
 * UTF-32 bytes read one character per byte) is replaced by the marker in the same layout, so the
 * rest of the text still reads in its encoding.
 */
import { fromLatin1 } from "../byte-text";
import { PAUSE, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * What cutting one range costs in slice positions besides its characters (charged as the
 * marker's layout reads them): a slice, a marker and their place in the parts.
 */
const RANGE_COST = 4;

/**
 * Work the cutting did since the isolate started, in slice positions: a count that does not
 * depend on the machine, so a test can bound the work between pauses.
 */
export const cutWork = { positions: 0 };

/**
 * The text with each range replaced by the marker; a sliced pass (../slices.ts): a body full of
 * copies of a secret is hundreds of thousands of ranges (issue #40).
 * @param text - the text searched
 * @param ranges - found ranges as start and end pairs, in order, not overlapping
 * @param budget - the caller's slice budget
 */
export function* cutText(
  text: string,
  ranges: readonly number[],
  budget: SliceBudget,
): Sliced<string> {
  const parts: string[] = [];
  const code = (i: number) => text.charCodeAt(i);
  let at = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    const [start, end] = [ranges[k]!, ranges[k + 1]!];
    parts.push(text.slice(at, start), yield* markerFor(code, start, end, budget));
    at = end;
    const cost = RANGE_COST;
    cutWork.positions += cost;
    if ((budget.left -= cost) <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * New bytes with each range replaced by the marker's bytes (one byte per marker character); a
 * sliced pass, as {@link cutText}.
 * @param bytes - the bytes searched (one character per byte)
 * @param ranges - found ranges as start and end pairs, in order, not overlapping
 * @param budget - the caller's slice budget
 */
export function* cutBytes(
  bytes: Uint8Array,
  ranges: readonly number[],
  budget: SliceBudget,
): Sliced<Uint8Array> {
  const parts: Uint8Array[] = [];
  const code = (i: number) => bytes[i]!;
  let at = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    const [start, end] = [ranges[k]!, ranges[k + 1]!];
    parts.push(bytes.subarray(at, start), fromLatin1(yield* markerFor(code, start, end, budget)));
    at = end;
    const cost = RANGE_COST;
    cutWork.positions += cost;
    if ((budget.left -= cost) <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
    cutWork.positions += RANGE_COST / 2;
    if ((budget.left -= RANGE_COST / 2) <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return out;
}

/**
 * The marker for a cut range, laid out like the range (see the file header); a sliced pass that
 * charges each character it reads: a range is as long as the body when copies overlap all
 * through it (a secret of one repeated letter, a body that spells it everywhere), and the range
 * is read up to three times.
 */
function* markerFor(
  code: (i: number) => number,
  start: number,
  end: number,
  budget: SliceBudget,
): Sliced<string> {
  const length = end - start;
  let letters = 0;
  for (let from = start; from < end;) {
    const to = Math.min(end, from + Math.max(1, Math.ceil(budget.left)));
    for (let i = from; i < to; i++) if (code(i) !== 0) letters++;
    cutWork.positions += to - from;
    if ((budget.left -= to - from) <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    from = to;
  }
  if (letters === length || letters === 0) return REDACTED;
  for (const stride of [2, 4]) {
    // Letters every `stride` characters from the first; NULs after the last belong to it (or
    // open the next character, big-endian), and stay.
    const span = (letters - 1) * stride + 1;
    let fits = length >= span;
    for (let from = 0; from < length && fits;) {
      const to = Math.min(length, from + Math.max(1, Math.ceil(budget.left)));
      let i = from;
      for (; i < to && fits; i++) fits = (code(start + i) !== 0) === (i < span && i % stride === 0);
      cutWork.positions += i - from;
      if ((budget.left -= i - from) <= 0) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
      from = to;
    }
    if (fits) return [...REDACTED].join("\0".repeat(stride - 1)) + "\0".repeat(length - span);
  }
  return REDACTED;
}
