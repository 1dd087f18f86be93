/**
 * What every dump of two lines or more holds: a line break followed by the first two hex digits
 * of the next line's offset. Searched natively over the whole text before any dump line is
 * searched in windows (../windowed-search.ts), so a text without it (one line, prose, JSON whose
 * line breaks are escaped) pays no pause for the dump readings. Two digits written out, not
 * `{7}`: V8 counts a repetition's failed steps as backtracks, and `\n[0-9a-f]{7}` left the
 * backtracking engine over 4 MB of `\n000000x` lines; this cannot backtrack. Either case:
 * `xxd -u` prints upper case.
 */
export const SECOND_LINE = /\n[0-9a-f][0-9a-f]/i;
