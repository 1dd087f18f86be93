/**
 * The nesting limit the host re-checks on wire JSON text from the sandbox (host-call arguments
 * and results). The codec follows at most 200 levels of a value and marks deeper ones, so an
 * honest harness never sends deeper text; a program that gets past it (a getter that answers
 * shallow to the encoder's check and deep to JSON.stringify, or a `then` on Object.prototype
 * that replaces the harness's response) could otherwise hand host functions and the executor's
 * caller values that recursive code (JSON.stringify, structuredClone, tree walks) overflows on.
 */

/**
 * Deepest nesting of arrays and objects accepted in wire text: the codec's 200 levels, each at
 * most 3 brackets deep in the wire form (a Map entry is `{"$cm":"map","v":[[k, v]]}`), plus room.
 */
export const MAX_WIRE_NESTING = 1_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, by one scan of the text (no
 * parse, no recursion; text too short to nest that deep is not read at all).
 * @param text - JSON text (malformed text is scanned all the same; the parse reports it)
 * @param max - the deepest nesting accepted
 */
export function nestedDeeperThan(text: string, max: number = MAX_WIRE_NESTING): boolean {
  // Each level costs an opening and a closing bracket.
  if (text.length <= 2 * max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}
