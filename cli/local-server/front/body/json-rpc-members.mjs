/**
 * What the front reads of a JSON-RPC request body: each top-level message's `jsonrpc`, `method`
 * and `id`. The ids it echoes in the errors it answers for a request (a cut-off, a refusal) so
 * that an MCP client matches them to its call; the methods tell a long wait (../long-wait.mjs).
 *
 * Read in one pass over the body's text that builds none of the values it skips, never by
 * `JSON.parse` of the whole body: the front runs in the supervisor's one thread, beside the
 * watchdog of every runtime, and a parse builds every value of a body a client chose. A 3.6 MiB
 * MCP body holding a 1.9-million-level nested array took ~1.4 s to parse there; 16 such bodies at
 * once held the supervisor ~5.7 s, its probes of the runners went unanswered, three idle runners
 * were replaced as stuck, and another client's search waited 10.7 s or failed (attack17). Plain
 * bodies parsed at ~45 ms per MB. Only the members `jsonrpc`, `method` and `id` of each top-level
 * message are decoded (each a string or number token, through `JSON.parse` of that token alone).
 *
 * Lenient where it does not matter: a body that is not JSON gives no ids, and one that is broken
 * after its messages' members may still give theirs (the error is the client's own either way).
 */
import * as JSON_CHARACTERS from "../../../../src/mcp/common/json-characters.mjs";

// Local constants, not imported bindings: the loops compare every character with them
// (json-characters.mjs says what that costs).
const { OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET } = JSON_CHARACTERS;
const { QUOTE, BACKSLASH, COMMA, COLON, JSON_WHITESPACE } = JSON_CHARACTERS;

/**
 * A top-level message's members that the front reads: each a string, number, boolean or null
 * when the message has it so, else undefined (an object or array is not read).
 * @typedef {{ jsonrpc?: unknown, method?: unknown, id?: unknown }} MessageMembers
 */

/**
 * The members of each top-level message of a request body (one message or a batch; a batch's
 * elements that are not objects are skipped); none when the body is not JSON.
 * @param {Uint8Array | string} body - the body (or its start, up to the size kept)
 * @returns {MessageMembers[]}
 */
export function jsonRpcMembers(body) {
  const text = typeof body === "string" ? body : Buffer.from(body).toString();
  /** @type {MessageMembers[]} */
  const messages = [];
  try {
    let at = space(text, 0);
    if (text.charCodeAt(at) !== OPEN_BRACKET)
      return readMessage(text, at, messages) < 0 ? [] : messages;
    at = space(text, at + 1);
    if (text.charCodeAt(at) === CLOSE_BRACKET) return [];
    for (;;) {
      const end =
        text.charCodeAt(at) === OPEN_BRACE ? readMessage(text, at, messages) : skip(text, at);
      if (end < 0) return [];
      at = space(text, end);
      const next = text.charCodeAt(at);
      if (next === CLOSE_BRACKET) return messages;
      if (next !== COMMA) return [];
      at = space(text, at + 1);
    }
  } catch {
    return [];
  }
}

/**
 * The JSON-RPC request ids in a request body (one message or a batch), if it is JSON-RPC: those
 * of messages with `jsonrpc: "2.0"`, a string `method` and a string or number `id`.
 * @param {Uint8Array | string} body - the body (or its start, up to the size kept)
 * @returns {(string | number)[]}
 */
export function jsonRpcIds(body) {
  /** @type {(string | number)[]} */
  const ids = [];
  for (const { jsonrpc, method, id } of jsonRpcMembers(body))
    if (
      jsonrpc === "2.0" &&
      typeof method === "string" &&
      (typeof id === "string" || typeof id === "number")
    )
      ids.push(id);
  return ids;
}

/** The members of a message that decide its id. */
const WANTED = new Set(["jsonrpc", "method", "id"]);

/**
 * Reads the object at `at` as one message and adds its members to `messages`.
 * @param {string} text
 * @param {number} at - at its `{`
 * @param {MessageMembers[]} messages
 * @returns {number} where it ends (-1: not an object, or cut short)
 */
function readMessage(text, at, messages) {
  if (text.charCodeAt(at) !== OPEN_BRACE) return -1;
  /** @type {Record<string, unknown>} */
  const members = {};
  at = space(text, at + 1);
  if (text.charCodeAt(at) !== CLOSE_BRACE)
    for (;;) {
      if (text.charCodeAt(at) !== QUOTE) return -1;
      const keyEnd = skipString(text, at);
      if (keyEnd < 0) return -1;
      const key = token(text, at, keyEnd);
      at = space(text, keyEnd);
      if (text.charCodeAt(at) !== COLON) return -1;
      at = space(text, at + 1);
      const valueEnd = skip(text, at);
      if (valueEnd < 0) return -1;
      // A later member of the same name wins, as in JSON.parse.
      if (typeof key === "string" && WANTED.has(key)) {
        const first = text.charCodeAt(at);
        members[key] =
          first === OPEN_BRACE || first === OPEN_BRACKET ? undefined : token(text, at, valueEnd);
      }
      at = space(text, valueEnd);
      const next = text.charCodeAt(at);
      if (next === CLOSE_BRACE) break;
      if (next !== COMMA) return -1;
      at = space(text, at + 1);
    }
  messages.push(members);
  return at + 1;
}

/**
 * The value of the token `text[from, to)` (a string, number, `true`, `false` or `null`).
 * @param {string} text
 * @param {number} from
 * @param {number} to
 * @returns {unknown}
 */
function token(text, from, to) {
  const raw = text.slice(from, to);
  // A string without escapes is its own text: no parse for the usual key.
  if (raw.charCodeAt(0) === QUOTE && !raw.includes("\\")) return raw.slice(1, -1);
  return JSON.parse(raw);
}

/**
 * Where the value at `at` ends, without building it (strings, numbers, literals, and objects and
 * arrays at any depth, counted, not descended into); -1 when it is cut short.
 * @param {string} text
 * @param {number} at
 * @returns {number}
 */
function skip(text, at) {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return skipString(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let end = at;
    while (end < text.length && !ENDS_LITERAL.has(text.charCodeAt(end))) end++;
    return end > at ? end : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return -1;
}

/** What ends a number or a literal. */
const ENDS_LITERAL = new Set([COMMA, CLOSE_BRACE, CLOSE_BRACKET, ...JSON_WHITESPACE]);

/**
 * Where the string whose `"` is at `at` ends (after its closing `"`); -1 when it is cut short.
 * @param {string} text
 * @param {number} at
 * @returns {number}
 */
function skipString(text, at) {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/**
 * The first position at or after `at` that is not JSON whitespace.
 * @param {string} text
 * @param {number} at
 */
function space(text, at) {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}
