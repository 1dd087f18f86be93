/**
 * Unicode code point notation: `U+0074 U+006F` (and `U+74`, `u+0074`, back to back
 * `U+0074U+006F`) and Perl's and PCRE's `\x{74}`. Each
 * item is read alone, with the separator between two items dropped (./item-runs.ts), so a copy
 * with some characters written this way reads whole. (`&#x74;` and `&#116;` are character
 * references, decoded by ../decoding/decode-step.ts.)
 */
import { notationView, notationViewInSlices, type Notation } from "./item-runs";
import type { Sliced } from "../slices";
import type { View } from "../view-builder";
import type { SliceBudget } from "../windowed-search";

const hexValue = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1;

/** Up to six hex digits at `at` as [value, count]. */
function hexAt(text: string, at: number): [number, number] {
  let [value, count] = [0, 0];
  while (count < 6) {
    const digit = hexValue(text.charCodeAt(at + count));
    if (digit < 0) break;
    value = value * 16 + digit;
    count++;
  }
  return [value, count];
}

const CODE_POINTS: Notation = {
  lead: /[uU]\+[0-9a-fA-F]|\\x\{[0-9a-fA-F]/,
  minItems: 1,
  joined: true,
  mayHold: (text) => /[uU]\+[0-9a-fA-F]|\\x\{[0-9a-fA-F]/.test(text),
  item(text, at, code) {
    const brace = text.charCodeAt(at) === 92;
    const [value, count] = hexAt(text, at + (brace ? 3 : 2));
    if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
    if (brace) {
      if (count === 0 || text.charCodeAt(at + 3 + count) !== 125) return 0;
      code.value = value;
      return count + 4;
    }
    // `U+74` is two digits at least; `U+7` is more likely prose than a character.
    if (count < 2) return 0;
    code.value = value;
    return count + 2;
  },
};

/**
 * The view of a text's code point notation read as characters, or undefined when it has none.
 * @param view - a text and its map to the original
 */
export function codePointView(view: View): View | undefined {
  return notationView(view, CODE_POINTS);
}

/**
 * {@link codePointView} as a sliced pass (../slices.ts).
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function codePointViewInSlices(view: View, budget: SliceBudget): Sliced<View | undefined> {
  return notationViewInSlices(view, CODE_POINTS, budget);
}
