/**
 * Whether a text is JSON, decided in one pass that builds none of its values: what `JSON.parse`
 * would accept, without what it would build.
 *
 * Why: a body past the shape limits (json-shape.ts) is refused unparsed, since parsing it is the
 * cost the limits bound; but a body that is not JSON at all deserves the parse error (`-32700`)
 * every other malformed body gets, and `JSON.parse` of a 1.9-million-level text that breaks at
 * its last byte builds every level before it fails. So the refusal asks this pass first. It runs
 * only for a body already past a limit: a body within them is judged by the parse itself.
 */

import * as JSON_CHARACTERS from "./json-characters.mjs";

// Copied into constants of this module: a compare in the loop then reads no module binding
// (json-characters.mjs says what that costs).
const { OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, QUOTE, BACKSLASH, COMMA, COLON } = JSON_CHARACTERS;

/**
 * Whether `JSON.parse(text)` would succeed: linear in the text's length, iterative (no nesting
 * depth can overflow a stack), holding one byte per open level (the character that closes it).
 * Whitespace is looked at only where a character at or below U+0020 stands: client bodies rarely
 * hold any, and the pass runs over a body already past a limit, millions of tokens long.
 * @param text - a request body as text
 */
export function isWellFormedJson(text: string): boolean {
  let closers = new Uint8Array(64);
  let depth = 0;
  let i = space(text, 0);
  for (;;) {
    // A value starts at i.
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      // `[` + 2 is `]`, `{` + 2 is `}`.
      const close = c + 2;
      i++;
      let next = text.charCodeAt(i);
      if (next <= 0x20) {
        i = space(text, i);
        next = text.charCodeAt(i);
      }
      if (next === close) {
        i++;
      } else {
        if (depth === closers.length) {
          const grown = new Uint8Array(closers.length * 2);
          grown.set(closers);
          closers = grown;
        }
        closers[depth++] = close;
        if (c === OPEN_BRACE) {
          i = key(text, i);
          if (i < 0) return false;
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return false;
    } else if (c === 0x74 /* t */ && text.startsWith("true", i)) {
      i += 4;
    } else if (c === 0x66 /* f */ && text.startsWith("false", i)) {
      i += 5;
    } else if (c === 0x6e /* n */ && text.startsWith("null", i)) {
      i += 4;
    } else {
      i = numberEnd(text, i);
      if (i < 0) return false;
    }
    // A value ended at i: close what it ends, or go on to the next value.
    for (;;) {
      let d = text.charCodeAt(i);
      if (d <= 0x20) {
        i = space(text, i);
        d = text.charCodeAt(i);
      }
      if (depth === 0) return i === text.length;
      if (d === COMMA) {
        i++;
        if (text.charCodeAt(i) <= 0x20) i = space(text, i);
        if (closers[depth - 1] === CLOSE_BRACE) {
          i = key(text, i);
          if (i < 0) return false;
        }
        break;
      }
      if (d !== closers[depth - 1]) return false;
      depth--;
      i++;
    }
  }
}

/** Past JSON whitespace from `at` (space, tab, line feed, carriage return; not even a BOM). */
function space(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** A member's key and its colon at `at`: where its value starts, or -1. */
function key(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  let i = stringEnd(text, at);
  if (i < 0) return -1;
  i = space(text, i);
  if (text.charCodeAt(i) !== COLON) return -1;
  return space(text, i + 1);
}

/**
 * After the string whose `"` is at `at`, or -1 when it is not a whole JSON string (a control
 * character, a bad escape, or the text's end). Character by character: a regular expression
 * per string cost more than the loop over the short strings that most bodies hold.
 */
function stringEnd(text: string, at: number): number {
  const length = text.length;
  let i = at + 1;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    const e = text.charCodeAt(i + 1);
    if (e === 0x75 /* u */) {
      for (let h = i + 2; h < i + 6; h++) if (!isHex(text.charCodeAt(h))) return -1;
      i += 6;
    } else if (SIMPLE_ESCAPE[e] === 1) {
      i += 2;
    } else return -1;
  }
  return -1;
}

/** 1 at each character that may follow a backslash on its own: `"` `\` `/` b f n r t. */
const SIMPLE_ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * After the JSON number at `at`, or -1 (what follows is the caller's to check: `01` is `0`,
 * then a stray `1`).
 */
function numberEnd(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === 0x2d /* - */) i++;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (first > 0x30 && first <= 0x39) while (isDigit(text.charCodeAt(++i)));
  else return -1;
  if (text.charCodeAt(i) === 0x2e /* . */) {
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    const sign = text.charCodeAt(++i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  return i;
}
