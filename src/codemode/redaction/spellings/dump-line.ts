/** A line break and two hex digits; `g` so a search starts where {@link hasSecondLine} says. */
const SECOND_LINE = /\n[0-9a-f][0-9a-f]/gi;

/**
 * Whether the text holds what every dump of two lines or more holds: a line break followed by
 * the first two hex digits of the next line's offset. Asked over the whole text before any dump
 * line is searched in windows (../windowed-search.ts), so a text without it (one line, prose,
 * JSON whose line breaks are escaped) pays no pause for the dump readings. The first line break
 * is found with `indexOf`, which passes over a text without one many times faster than the
 * pattern does (three readings ask every view: 4 MB of `12 12 12 …` has ~15 views, ~3 ms each
 * by the pattern alone); the pattern searches from there. Two digits written out, not `{7}`:
 * V8 counts a repetition's failed steps as backtracks, and `\n[0-9a-f]{7}` left the
 * backtracking engine over 4 MB of `\n000000x` lines; this cannot backtrack. Either case:
 * `xxd -u` prints upper case.
 * @param text - the text
 */
export function hasSecondLine(text: string): boolean {
  const first = text.indexOf("\n");
  if (first < 0) return false;
  SECOND_LINE.lastIndex = first;
  const found = SECOND_LINE.test(text);
  SECOND_LINE.lastIndex = 0;
  return found;
}
