// Text from a spec file, shown on the user's terminal by `check`, `init --spec` and a start with
// SPEC_FILE. A spec is often a third party's document, and its strings (a title, a server URL, a
// path used as a JSON pointer) reached the terminal raw: an ESC sequence or a carriage return
// in `servers[0].url` erased the line `check` and `init` print to say where API_TOKEN will be
// sent and wrote another address in its place, while the server used the spec's own. Each value
// is written here with the characters a terminal would act on as `\uXXXX` escapes.

/**
 * Characters a terminal acts on or that reorder what is shown: C0 controls but tab and line
 * feed, DEL and the C1 controls (NEL, CSI), and the bidirectional marks and overrides.
 */
const CONTROLS =
  // oxlint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** What else ends or breaks a line: within one value, a new line could pass for the tool's own. */
const LINE_BREAKS = /[\t\n\u2028\u2029]/g;

/** @param {string} c */
const escaped = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with its terminal controls escaped; tabs and line feeds stay (a message of many lines).
 * @param {unknown} text
 * @returns {string}
 */
export function terminalText(text) {
  return String(text).replace(CONTROLS, escaped);
}

/**
 * One value (a title, a URL, a pointer) as one line: its terminal controls and its line breaks
 * escaped, so it can neither rewrite what is shown nor add a line of its own.
 * @param {unknown} text
 * @returns {string}
 */
export function oneLineText(text) {
  return terminalText(text).replace(LINE_BREAKS, escaped);
}
