/**
 * What stands between two items of a spelled-out run, for every reader of runs: the lists view
 * (./lists-view.ts) and the notations read item by item (./item-runs.ts). Whitespace around at
 * most one of `, . : ; - | /`: `-` is .NET's `BitConverter.ToString` (`74-6F`), `|` and `/` join
 * lists as often as commas. One definition, so a separator one reader takes the other takes too.
 */

/** The separator characters beyond whitespace. */
export const LIST_SEPARATORS = ",.:;-|/";

/** Whether a character code is whitespace (ASCII: space, tab, line breaks, form feed). */
export const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/** Whether a character code is one of {@link LIST_SEPARATORS} (compared as codes: a hot path). */
export const isListSeparator = (c: number): boolean =>
  c === 44 || c === 46 || c === 58 || c === 59 || c === 45 || c === 124 || c === 47;

/**
 * The separator's length at `at`: whitespace around at most one separator character; 0 when
 * there is none.
 * @param text - the text
 * @param at - where the separator would start
 * @param separators - the separator characters allowed ({@link LIST_SEPARATORS} by default)
 */
export function separatorAt(text: string, at: number, separators = LIST_SEPARATORS): number {
  let end = at;
  while (isSpace(text.charCodeAt(end))) end++;
  const c = text.charCodeAt(end);
  const separator =
    separators === LIST_SEPARATORS
      ? isListSeparator(c)
      : end < text.length && separators.includes(text[end]!);
  if (separator) {
    end++;
    while (isSpace(text.charCodeAt(end))) end++;
  }
  return end - at;
}
