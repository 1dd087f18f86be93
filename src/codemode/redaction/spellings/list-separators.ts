/**
 * What stands between two items of a spelled-out run, for every reader of runs: the lists view
 * (./lists-view.ts) and the notations read item by item (./item-runs.ts). Whitespace around at
 * most two of `, . : ; - | /` (`115, 107`, `115,,107`, `115 , , 107`, `115 ,, 107`): `-` is
 * .NET's `BitConverter.ToString` (`74-6F`), `|` and `/` join lists as often as commas, and a
 * doubled one is what a join over a list with empty items or a CSV writer puts there. One
 * definition, so a separator one reader takes the other takes too.
 *
 * Why two and not any number: every separator is read once per item a reader reads, so its
 * length costs nothing beyond the characters it covers; the bound only keeps the notion of a
 * list (three or more joiners, `1,,,2`, are empty fields of a table as often as not) and is what
 * docs/security.md names as not read.
 */

/** The separator characters beyond whitespace. */
export const LIST_SEPARATORS = ",.:;-|/";

/** How many {@link LIST_SEPARATORS} may stand between two items (of a notation's own: one). */
export const MOST_JOINERS = 2;

/** Whether a character code is whitespace (ASCII: space, tab, line breaks, form feed). */
export const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/** Whether a character code is one of {@link LIST_SEPARATORS} (compared as codes: a hot path). */
export const isListSeparator = (c: number): boolean =>
  c === 44 || c === 46 || c === 58 || c === 59 || c === 45 || c === 124 || c === 47;

/**
 * The separator's length at `at`: whitespace around at most {@link MOST_JOINERS} separator
 * characters (around one of a notation's own `separators`: Morse's `/` stays one mark); 0 when
 * there is none.
 * @param text - the text
 * @param at - where the separator would start
 * @param separators - the separator characters allowed ({@link LIST_SEPARATORS} by default)
 */
export function separatorAt(text: string, at: number, separators = LIST_SEPARATORS): number {
  let end = at;
  while (isSpace(text.charCodeAt(end))) end++;
  const list = separators === LIST_SEPARATORS;
  for (let k = list ? MOST_JOINERS : 1; k > 0; k--) {
    const c = text.charCodeAt(end);
    if (!(list ? isListSeparator(c) : end < text.length && separators.includes(text[end]!))) break;
    end++;
    while (isSpace(text.charCodeAt(end))) end++;
  }
  return end - at;
}
