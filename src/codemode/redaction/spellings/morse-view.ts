/**
 * Morse code (`- --- -.- ..--.- .-.. .. ...- .`): International Morse's letters, digits and the
 * punctuation it has (`. , ? ' ! / ( ) & : ; = + - _ " $ @`), one code per character, codes
 * separated by whitespace, words by `/` or `|` (./item-runs.ts). Morse has no letter case, so a
 * copy reads in upper case (the search matches a secret in upper case too). Runs of at least
 * {@link MIN_MORSE_ITEMS} codes only: dots and dashes side by side are common in text.
 */
import { notationView, notationViewInSlices, type Notation } from "./item-runs";
import type { Sliced } from "../slices";
import type { View } from "../view-builder";
import type { SliceBudget } from "../windowed-search";

/** The fewest codes a run needs (a secret's shortest form is 8 characters). */
export const MIN_MORSE_ITEMS = 8;

/** Each character followed by its code, space-separated. */
const CODES =
  "A.- B-... C-.-. D-.. E. F..-. G--. H.... I.. J.--- K-.- L.-.. M-- N-. O--- P.--. Q--.- R.-. S... T- U..- V...- W.-- X-..- Y-.-- Z--.. 0----- 1.---- 2..--- 3...-- 4....- 5..... 6-.... 7--... 8---.. 9----. ..-.-.- ,--..-- ?..--.. '.----. !-.-.-- /-..-. (-.--. )-.--.- &.-... :---... ;-.-.-. =-...- +.-.-. --....- _..--.- \".-..-. $...-..- @.--.-.";
const TABLE = new Map(CODES.split(" ").map((entry) => [entry.slice(1), entry[0]!]));

const isMark = (c: number) => c === 46 || c === 45;

const MORSE: Notation = {
  // Two codes apart by whitespace; searched in windows (../windowed-search.ts), so bounded: more
  // than 16 spaces are matched by their first 17 (`item` reads the run, whatever its separators).
  lead: /[.-]{1,7}(?:[ \t]{1,16}[.-]|[ \t]{17})/,
  minItems: MIN_MORSE_ITEMS,
  joined: false,
  separators: "/|",
  mayHold: (text) => /[.-][ \t]/.test(text),
  item(text, at, code) {
    if (at > 0 && isMark(text.charCodeAt(at - 1))) return 0;
    let end = at;
    while (end - at <= 7 && isMark(text.charCodeAt(end))) end++;
    const char = end - at <= 7 ? TABLE.get(text.slice(at, end)) : undefined;
    if (char === undefined) return 0;
    code.value = char.charCodeAt(0);
    return end - at;
  },
};

/**
 * The view of a text's Morse runs read as characters, or undefined when it has none.
 * @param view - a text and its map to the original
 */
export function morseView(view: View): View | undefined {
  return notationView(view, MORSE);
}

/**
 * {@link morseView} as a sliced pass (../slices.ts).
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function morseViewInSlices(view: View, budget: SliceBudget): Sliced<View | undefined> {
  return notationViewInSlices(view, MORSE, budget);
}
