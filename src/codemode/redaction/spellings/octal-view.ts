/**
 * Octal bytes outside a dump: `164 157 153` (printf's `%o`, `od -b` columns copied out),
 * `0164,0157` (C's `%#o`), `0o164 0o157` (Python's `oct()`), and the escapes `\164\157\153` (C,
 * Python, shell `$'…'` and JavaScript's legacy octal escapes). The decoding steps read `\164` as a
 * CSS hex escape (`Ť`) and the lists view reads `164 157` as decimal codes, so neither gives the
 * characters back; this view does (./item-runs.ts).
 *
 * Bare numbers need a run of {@link MIN_OCTAL_ITEMS} (a list of small numbers is ordinary data,
 * and only a run as long as a secret's shortest form can hold one); an escape or a `0o` number is
 * unambiguous and is read alone too, so a copy with only some characters escaped
 * (`tok\137Live`) reads whole.
 */
import { notationView, notationViewInSlices, type Notation } from "./item-runs";
import type { Pause } from "../slices";
import type { View } from "../view-builder";
import type { SliceBudget } from "../windowed-search";

/** The fewest bare octal numbers a run needs (a secret's shortest form is 8 characters). */
export const MIN_OCTAL_ITEMS = 8;

const isOctal = (c: number) => c >= 48 && c <= 55;
const isWord = (c: number) =>
  (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) || c === 95;

/** Up to `max` octal digits at `at` as [value, count]. */
function octalAt(text: string, at: number, max: number): [number, number] {
  let [value, count] = [0, 0];
  while (count < max && isOctal(text.charCodeAt(at + count))) {
    value = value * 8 + text.charCodeAt(at + count) - 48;
    count++;
  }
  return [value, count];
}

/** Escapes and `0o` numbers: unambiguous, read alone or joined. */
const ESCAPES: Notation = {
  lead: /\\[0-7]|0o[0-7]/,
  minItems: 1,
  joined: true,
  mayHold: (text) => /\\[0-7]|0o[0-7]/.test(text),
  item(text, at, code) {
    const c = text.charCodeAt(at);
    if (c === 92) {
      // `\ooo`: one to three digits, at most 0377 (C reads no more).
      const [value, count] = octalAt(text, at + 1, 3);
      if (count === 0 || value > 0xff) return 0;
      code.value = value;
      return count + 1;
    }
    if (c !== 48 || text.charCodeAt(at + 1) !== 111) return 0;
    if (at > 0 && isWord(text.charCodeAt(at - 1))) return 0;
    const [value, count] = octalAt(text, at + 2, 3);
    if (count === 0 || value > 0xff || isWord(text.charCodeAt(at + 2 + count))) return 0;
    code.value = value;
    return count + 2;
  },
};

/** A separator of at most 16 whitespace characters on each side of its character. */
const SEP = String.raw`(?:\s{1,16}|\s{0,16}[,.:;|/-]\s{0,16})`;
/** The start of a longer one: 17 whitespace characters, after its character or not. */
const LONG = String.raw`(?:\s{17}|\s{0,16}[,.:;|/-]\s{17})`;

/** Bare numbers (`164`, and `0164` with C's leading zero), in runs only. */
const NUMBERS: Notation = {
  // Two numbers, each followed by a separator: a number alone (`%25%25…`, an id) or two (a date's
  // `2023-11`) is no run, and trying each one cost a body of escapes as much as its decoding.
  // Searched in windows (../windowed-search.ts), so no repetition is unbounded: a separator of
  // up to 16 spaces on each side of its character is matched whole, a longer one by its first
  // 17 spaces (and the run is then read by `item`, which takes any separator).
  lead: new RegExp(`\\b0?[0-7]{2,3}(?:${LONG}|${SEP}0?[0-7]{2,3}(?:${LONG}|${SEP}[0-7]))`),
  minItems: MIN_OCTAL_ITEMS,
  joined: false,
  // Two octal digits before a separator: a flood of escapes (`%2541%25…`) has no separator.
  mayHold: (text) => /[0-7][0-7][\s,.:;|/-]/.test(text),
  item(text, at, code) {
    if (at > 0 && isWord(text.charCodeAt(at - 1))) return 0;
    const [value, count] = octalAt(text, at, 4);
    // Two or three digits (`56`, `164`), or four with a leading zero (`0164`).
    const ok = count === 2 || count === 3 || (count === 4 && text.charCodeAt(at) === 48);
    if (!ok || value > 0xff || isWord(text.charCodeAt(at + count))) return 0;
    code.value = value;
    return count;
  },
};

/**
 * The views of a text's octal escapes and of its runs of octal numbers read as characters
 * (either may be undefined: nothing of that kind).
 * @param view - a text and its map to the original
 */
export function octalViews(view: View): (View | undefined)[] {
  return [notationView(view, ESCAPES), notationView(view, NUMBERS)];
}

/**
 * The octal views that exist, one at a time, as a sliced pass (../slices.ts): the second is
 * made after the first was searched, so the two are never held at once.
 * @param view - a text and its map to the original
 * @param budget - the slice budget of the pass it belongs to
 */
export function* octalViewsInSlices(view: View, budget: SliceBudget): Generator<View | Pause> {
  for (const notation of [ESCAPES, NUMBERS]) {
    const made = yield* notationViewInSlices(view, notation, budget);
    if (made) yield made;
  }
}
