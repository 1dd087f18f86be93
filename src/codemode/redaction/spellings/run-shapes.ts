/**
 * Where a run of list items can be: the cheap test lists-view.ts makes before its pass over a
 * text's tokens ({@link mayHoldRun}), with the proof that a text failing it holds no region that
 * pass would yield.
 */
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import { holds, type SliceBudget } from "../windowed-search";
import { isQuote, isSpace, isWord, MIN_ITEMS } from "./list-items";
import { isListSeparator, MOST_JOINERS } from "./list-separators";

/** Characters that may stand between two items of a run (as ./list-separators.ts reads them). */
export const isSeparator = (c: number) => isSpace(c) || isListSeparator(c);

/** A one-character string as ./list-items.ts's `charsItem` reads it (any quote each side). */
const CHARS_ITEM = String.raw`["'](?:\\u[0-9a-fA-F]{4}|\\[^]|[\ud800-\udbff][^]|[^])["']`;
/**
 * A separator with fewer than {@link WHITESPACE_RUN} whitespace characters around each of its
 * separator characters, of which it has up to {@link MOST_JOINERS} as ./list-separators.ts
 * reads (`115,,107`): with one only, an array of characters none of which is a
 * {@link STREAK_CHARACTER} (full-width letters, punctuation) joined by `,,` failed every shape,
 * and its pass was not made (attack16).
 */
const SHORT_SEPARATOR = String.raw`[\t-\r ]{0,7}(?:[,.:;\-|/][\t-\r ]{0,7}){0,${MOST_JOINERS}}`;
/** The whitespace run that {@link SHORT_SEPARATOR} does not cover. */
const WHITESPACE_RUN = 8;
/** The fewest characters a streak of {@link MIN_ITEMS} tokens spans: a token and a gap each. */
const STREAK = 2 * MIN_ITEMS - 1;

/**
 * What a streak of tokens is made of: letters, digits, `_`, quotes, whitespace and the
 * separators of ./list-separators.ts (one entry per ASCII character; none beyond ASCII).
 */
const STREAK_CHARACTER = new Uint8Array(128).map((_, c) =>
  isWord(c) || c === 95 || isQuote(c) || isSeparator(c) ? 1 : 0,
);

/**
 * Shapes of a run that the pass over tokens (lists-view.ts's `candidateRegions`) may find besides a
 * streak of {@link STREAK} characters ({@link holdsStreak}), as native searches in windows
 * (../windowed-search.ts).
 */
const RUN_SHAPES = [
  /\|[\x20-\x7e]{1,16}\|\r?\n[0-9a-f]{8} /,
  new RegExp(`[\\t-\\r ]{${WHITESPACE_RUN}}`),
  new RegExp(`${CHARS_ITEM}${SHORT_SEPARATOR}${CHARS_ITEM}${SHORT_SEPARATOR}${CHARS_ITEM}`),
];

/**
 * Whether the text holds what every region lists-view.ts's `candidateRegions` yields holds: a text that
 * holds none of it has no region, so the pass over its tokens is not made. Why (issue #40):
 * random bytes (a binary answer) hold no list, yet the pass read each of their 4 MB views
 * character by character, ~14 % of such a body's redaction. Ordinary text holds a streak at its
 * first words and pays a few probes more.
 *
 * Why a text that holds none of it has no region, for each way the pass yields one:
 * - a streak of {@link MIN_ITEMS} tokens: 8 tokens of letters, digits and `_` with a gap between
 *   each two, every gap character whitespace, a separator, a quote or (after a `|`) a
 *   `hexdump -C` line end; the pass resets its count at any other character. {@link STREAK}
 *   characters or more, each a {@link STREAK_CHARACTER} unless a line end is among them (the
 *   first shape: the `DUMP_LINE_END` the pass reads, less its leading spaces);
 * - one token of 32 or more word characters (bits, `0x` bytes back to back): a streak too;
 * - a run of one-character strings of {@link MIN_ITEMS} items: its first three items, each read
 *   by `charsItem` (a quote, an escape or one code point or a high surrogate and any unit, the
 *   same quote) and each followed by a separator of ./list-separators.ts (whitespace, and up to
 *   two separator characters each followed by whitespace): with every whitespace run of the
 *   text shorter than
 *   {@link WHITESPACE_RUN} (else the second shape matches) that is the third shape.
 * Each shape matches at most 70 characters, and backtracks a bounded number of times per
 * position (no two quantifiers in a row take the same character).
 */
export function* mayHoldRun(text: string, budget: SliceBudget): Sliced<boolean> {
  if (yield* holdsStreak(text, budget)) return true;
  for (const shape of RUN_SHAPES) if (yield* holds(shape, text, budget)) return true;
  return false;
}

/**
 * Whether the text holds {@link STREAK} {@link STREAK_CHARACTER}s in a row. Every such stretch
 * holds a position that is {@link STREAK} − 1 modulo {@link STREAK}, so only those are probed,
 * and each probe that is one is extended both ways: random bytes are read about once per
 * {@link STREAK} characters (a native search of the class tried every position, and took half
 * the time of the pass it spares).
 */
function* holdsStreak(text: string, budget: SliceBudget): Sliced<boolean> {
  const n = text.length;
  const streak = (c: number) => c < 128 && STREAK_CHARACTER[c] === 1;
  for (let probe = STREAK - 1; probe < n; probe += STREAK) {
    if (--budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    if (!streak(text.charCodeAt(probe))) continue;
    let from = probe;
    while (from > probe - STREAK + 1 && streak(text.charCodeAt(from - 1))) from--;
    let to = probe + 1;
    while (to - from < STREAK && streak(text.charCodeAt(to))) to++;
    budget.left -= to - from;
    if (to - from >= STREAK) return true;
  }
  return false;
}
