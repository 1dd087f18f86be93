/**
 * The ROT13 view: the text in ROT13 when it holds a sequence of a character-level encoding
 * written in ROT13 (`%6S`), for the decoding steps to undo. ROT13 of the secret itself is a
 * literal form (../search/secret-forms.ts); this view is for ROT13 applied over an encoding.
 *
 * A sliced pass (../slices.ts) like the other views: the test for a ROT13-written sequence is a
 * windowed search (../windowed-search.ts: its lead `%` backtracks at every `%25` of a flood, and
 * one call over a whole body passed V8's 50,000 backtracks), and the rotated text is built a
 * slice of positions at a time, so a body of megabytes does not hold the host's thread.
 */
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import type { View } from "../view-builder";
import { holds, sliceBudget } from "../windowed-search";

/**
 * A sequence of a character-level encoding written in ROT13 (`%6F` → `%6S`, `\x74` → `\k74`,
 * `&#x74;` → `&#k74;`, `=6F` → `=6S`): digits and hex letters past `m`, which no encoding has.
 */
const ROT13_SEQUENCE =
  /%(?:[0-9][n-sN-S]|[n-sN-S][0-9n-sN-S])|=(?:[0-9][N-S]|[N-S][0-9N-S])|\\[kKhH][0-9n-sN-S]{2}|&#[kK][0-9n-sN-S]/;

/**
 * Characters rotated since the isolate started: a count that does not depend on the machine, so
 * a test can bound the work between two pauses.
 */
export const rot13Work = { positions: 0 };

/** Characters rotated at once: one string piece each (`String.fromCharCode` takes arguments). */
const CHUNK = 8_192;

/**
 * The view of a text in ROT13 (same length, so the same map), or undefined when it holds no
 * sequence of a character-level encoding written in ROT13: the decoding steps run on it then
 * undo a ROT13 applied over a percent-encoding or escapes (ROT13 of the secret itself is a
 * literal form, ../search/secret-forms.ts). A sliced pass: pauses every {@link SLICE_POSITIONS}
 * characters searched or rotated.
 * @param view - a text and its map to the original
 */
export function* rot13ViewInSlices(view: View): Sliced<View | undefined> {
  const { text } = view;
  const budget = sliceBudget();
  if (!(yield* holds(ROT13_SEQUENCE, text, budget))) return undefined;
  const out = new Uint16Array(Math.min(CHUNK, text.length));
  let rotated = "";
  for (let k = 0; k < text.length; k += CHUNK) {
    const end = Math.min(text.length, k + CHUNK);
    for (let i = k; i < end; i++) {
      const c = text.charCodeAt(i);
      const lower = c | 32;
      out[i - k] = lower >= 97 && lower <= 122 ? c + (lower <= 109 ? 13 : -13) : c;
    }
    rotated += String.fromCharCode.apply(null, out.subarray(0, end - k) as unknown as number[]);
    rot13Work.positions += end - k;
    budget.left -= end - k;
    if (budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  // Flattened once (character access on a rope of pieces is slow; the decoding steps read it).
  /\0/.test(rotated);
  return { text: rotated, origin: view.origin };
}
