const isLowerHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/**
 * Whether the text holds what every dump of two lines or more holds: a line break followed by
 * the first two hex digits of the next line's offset. Asked over the whole text before any dump
 * line is searched in windows (../windowed-search.ts), so a text without it (one line, prose,
 * JSON whose line breaks are escaped) pays no pause for the dump readings. Found line break by
 * line break with `indexOf`, which passes over a text without one many times faster than the
 * pattern `\n[0-9a-f][0-9a-f]` did (three readings ask it of every view: 4 MB of `12 12 12 …`
 * has ~15 views, ~3 ms each by the pattern). No repetition either way: V8 counts a repetition's
 * failed steps as backtracks (`\n[0-9a-f]{7}` left the backtracking engine over 4 MB of
 * `\n000000x` lines).
 * @param text - the text
 */
export function hasSecondLine(text: string): boolean {
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1))
    if (isLowerHex(text.charCodeAt(at + 1)) && isLowerHex(text.charCodeAt(at + 2))) return true;
  return false;
}
