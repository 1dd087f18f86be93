/**
 * The shape of a JSON text, read in one pass that builds none of its values: how deep it nests,
 * how many values and object keys it holds, and the `id` of each top-level JSON-RPC message.
 *
 * Why: `JSON.parse` builds every value a client put in a body, and what it costs grows with
 * the number of objects, arrays and keys, not with the bytes. On the local server's host (one
 * workerd thread for every client) a 3.6 MiB MCP body holding a 1.9-million-level nested array
 * took ~420 ms of host CPU to parse, ~60 % of it the collection of what the parse built, and a
 * 2.2 MiB body with 200,000 keys in one object ~140 ms; a 4 MiB string argument parses in
 * ~13 ms (issue #40, bench/README.md "Client bodies bounded by shape"). This pass runs first and
 * costs about as much as the string's parse; a body past {@link JSON_SHAPE_LIMITS} is refused
 * without being parsed.
 *
 * Lenient where it does not matter: it does not check that the text is JSON (`JSON.parse`
 * does, after it; for a body past a limit, json-well-formed.ts does, so that a malformed one is
 * answered as malformed), but whatever it counts bounds what a parse could build before it fails.
 */
import * as JSON_CHARACTERS from "./json-characters.mjs";

// Local constants, not imported bindings: the pass compares every character with them
// (json-characters.mjs says what that costs).
const { OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET } = JSON_CHARACTERS;
const { QUOTE, BACKSLASH, COMMA, COLON, JSON_WHITESPACE } = JSON_CHARACTERS;

/** The most a request body may nest and hold (see {@link exceedsJsonShape}). */
export const JSON_SHAPE_LIMITS = {
  /**
   * Levels of nesting: objects and arrays inside each other, the outermost at 1. A JSON-RPC
   * message is 2–6 deep (`params.arguments.…`, an elicitation's `content`); 64 leaves tools
   * room for nested arguments.
   */
  depth: 64,
  /**
   * Values and object keys together: every object, array, string, number, literal and key.
   * 100,000 parse in well under 100 ms even as 100,000 keys of one object (the costliest shape
   * per item), where a 4 MiB body could otherwise hold ~2 million.
   */
  items: 100_000,
} as const;

/** What {@link jsonShape} found in a text. */
export interface JsonShape {
  /** The deepest nesting (0: a scalar or nothing). */
  depth: number;
  /** Values and object keys counted. */
  items: number;
  /**
   * The `id` of each top-level message (an object, or an object element of a batch) whose `id`
   * is a string or a number, as JSON.parse would read it (the last `id` key wins): what an error
   * about the whole body echoes. None when more than {@link MAX_IDS} messages carry one.
   */
  ids: (string | number)[];
  /**
   * The length in characters of the longest string id of a top-level message (0: none), also of
   * one past {@link MAX_ID_CHARS}, which is not among {@link JsonShape.ids}.
   */
  longestId: number;
  /** Whether the text is an array (a JSON-RPC batch), whose errors are answered as one. */
  batch: boolean;
}

/**
 * Reads the shape of `text` in one pass (linear in its length, no value built but the ids).
 * @param text - a request body as text
 */
export function jsonShape(text: string): JsonShape {
  let depth = 0;
  let deepest = 0;
  let items = 0;
  const ids: (string | number)[] = [];
  // Whether more messages carried ids than an answer echoes (then it echoes none).
  let idsCut = false;
  // The messages' level: 1 for one message, 2 inside a batch (decided by the first token).
  let messageDepth = 1;
  // Inside a message object (at its own level): whether the next string is a key, the last key
  // read, and its id so far.
  let inMessage = false;
  let keyNext = false;
  let lastKey = "";
  let id: string | number | undefined;
  // The length of the message's id when it is a string (0 for a number or none).
  let idChars = 0;
  let longestId = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      items++;
      if (inMessage && depth === messageDepth) {
        if (keyNext) {
          // Decoded as JSON.parse would (`"\u0069d"` is `id` to the parse that answers it).
          lastKey = stringValue(text.slice(i, end)) ?? "";
          keyNext = false;
        } else if (lastKey === "id") {
          const value = stringValue(text.slice(i, end));
          idChars = value?.length ?? 0;
          // Past the limit it is never echoed (the answer refuses it, with id null).
          id = idChars > MAX_ID_CHARS ? undefined : value;
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 0 && c === OPEN_BRACKET) messageDepth = 2;
      // An object or array as the id's value: what JSON.parse keeps of `"id":1,"id":{}` is not 1.
      if (inMessage && depth === messageDepth && lastKey === "id") {
        id = undefined;
        idChars = 0;
      }
      depth++;
      items++;
      if (depth > deepest) deepest = depth;
      if (depth === messageDepth && c === OPEN_BRACE) {
        inMessage = true;
        keyNext = true;
        lastKey = "";
        id = undefined;
        idChars = 0;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (inMessage && depth === messageDepth) {
        inMessage = false;
        if (id !== undefined && !idsCut) ids.push(id);
        if (idChars > longestId) longestId = idChars;
      }
      // Past the most an answer echoes: none, so the answer is one error with id null.
      if (ids.length > MAX_IDS) {
        ids.length = 0;
        idsCut = true;
      }
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      if (inMessage && depth === messageDepth) keyNext = true;
    } else if (c !== COLON && c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      // A number or a literal: counted once, read to its end.
      const start = i;
      while (i < length && ENDS_TOKEN[text.charCodeAt(i)] !== 1) i++;
      items++;
      if (inMessage && depth === messageDepth && lastKey === "id") {
        // The last id is the one JSON.parse keeps: `null`, `true` or a token that is no JSON
        // number (`0x10`, `+1`) leaves none to echo, and neither does one too large (`1e400`).
        const token = text.slice(start, i);
        const value = JSON_NUMBER.test(token) ? Number(token) : NaN;
        id = Number.isFinite(value) ? value : undefined;
        idChars = 0;
      }
      continue;
    }
    i++;
  }
  return { depth: deepest, items, ids, longestId, batch: messageDepth === 2 };
}

/**
 * The most ids a shape keeps for its refusal. An answer echoes every id it holds, one error each
 * with the refusal's ~300-character message: a 4 MB batch of 440,000 `{"id":1}` was answered
 * with 121 MB (443 ms of CPU and 158 MB of heap to build, load 5). A real batch is a few
 * messages; past this many, the answer is one error with id `null`, as for a body whose ids
 * cannot be read.
 */
export const MAX_IDS = 1_000;

/**
 * The longest string id a request may carry, in characters. JSON-RPC sets no bound, but the id
 * is echoed in every answer and kept while the request is served (the 2025 lane's cancel board
 * keys it with the caller and address, up to 512 characters: stateless/cancel-board.ts), and
 * MCP clients send short ones: the SDKs count from 0, others send a UUID (36 characters). A
 * client sent 3 MiB ids, each under the body caps; each was parsed, kept and echoed back whole
 * (issue #40). 256 leaves room for any prefixed UUID or timestamp.
 */
export const MAX_ID_CHARS = 256;

/** A JSON number token, whole (what `Number` also reads but JSON.parse refuses is not one). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** What ends a number or a literal: 1 at each such character code (a table, not a set: the
 * loop over a body of numbers is the pass's slowest, and a lookup here halves it). */
const ENDS_TOKEN = new Uint8Array(128);
for (const c of [COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, QUOTE])
  ENDS_TOKEN[c] = 1;
for (const c of JSON_WHITESPACE) ENDS_TOKEN[c] = 1;

/**
 * Where the string whose `"` is at `at` ends (after its closing `"`), or the text's end when it
 * is cut short. Found with `indexOf`, not character by character: most of a large body is
 * string text.
 */
function stringEnd(text: string, at: number): number {
  let quote = text.indexOf('"', at + 1);
  while (quote !== -1) {
    // Escaped when an odd number of backslashes precede it.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** A string token's value (its escapes decoded); undefined when it is not a whole token. */
function stringValue(token: string): string | undefined {
  if (!token.includes("\\")) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string;
  } catch {
    return undefined;
  }
}

/**
 * Which limit of {@link JSON_SHAPE_LIMITS} a shape is past, if any, and by how much.
 * @param shape - from {@link jsonShape}
 */
export function exceedsJsonShape(
  shape: JsonShape,
): { limit: "depth" | "items"; found: number; max: number } | undefined {
  if (shape.depth > JSON_SHAPE_LIMITS.depth)
    return { limit: "depth", found: shape.depth, max: JSON_SHAPE_LIMITS.depth };
  if (shape.items > JSON_SHAPE_LIMITS.items)
    return { limit: "items", found: shape.items, max: JSON_SHAPE_LIMITS.items };
  return undefined;
}

/**
 * The refusal's text for a request whose id is longer than {@link MAX_ID_CHARS}.
 * @param chars - the id's length in characters
 */
export function longIdRefusal(chars: number): string {
  return `Invalid request: the JSON-RPC id is ${chars.toLocaleString("en-US")} characters long; this server takes ids of at most ${MAX_ID_CHARS} characters. Send a short id (a counter or a UUID, as MCP clients do).`;
}

/**
 * The refusal's text for a body past a limit: which limit, what was found, and what to do.
 * @param over - from {@link exceedsJsonShape}
 */
export function jsonShapeRefusal(over: {
  limit: "depth" | "items";
  found: number;
  max: number;
}): string {
  const found = over.found.toLocaleString("en-US");
  const max = over.max.toLocaleString("en-US");
  return over.limit === "depth"
    ? `Invalid request: the body nests ${found} levels deep; this server takes at most ${max} levels of objects and arrays. Send the data with less nesting (a flatter structure, or deep data as one string).`
    : `Invalid request: the body holds ${found} values and object keys; this server takes at most ${max} in one request. Send fewer values per request (split the data over several requests), or large data as one string.`;
}
