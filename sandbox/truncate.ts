/**
 * Structural truncation: shrinks a wire tree (see codec.ts) until its JSON text fits a byte
 * budget, keeping it valid JSON and marking every cut in place, so a model reading the result
 * knows what is missing instead of getting text chopped mid-token.
 *
 * Marks: a cut string ends with `…[+N chars]`; a cut array ends with the string
 * `…[+N items]`; a cut object gets the key `"…"` with `"[+N keys]"`; a subtree below the depth
 * limit becomes `"…[depth]"`. Limits tighten geometrically, so a result costs O(log n) passes
 * over at most the kept part, never more than one pass over the whole value.
 */
import type { Wire } from "./codec";

/** What {@link shrinkToFit} returns. */
export interface Shrunk {
  /** JSON text of the (possibly truncated) tree; always parses. */
  text: string;
  /** Whether anything was cut. */
  truncated: boolean;
  /** UTF-8 size of the untruncated JSON text. */
  originalBytes: number;
}

interface Limits {
  chars: number;
  items: number;
  depth: number;
}

// Captured when the module loads, before any user code: a program that replaces JSON, Object,
// Reflect or TextEncoder methods changes nothing here. (Prototype methods of its own values stay
// under its control; the host re-checks every size, so that can only spoil the program's own
// output.) The encoder itself is made on first use: making one is a measurable part of a fresh
// sandbox isolate's start (about 0.15 ms of ~2.8), and short texts are counted without it.
const { stringify } = JSON;
const { keys } = Object;
const { isArray } = Array;
const { apply } = Reflect;
const TextEncoderClass = TextEncoder;
const encode = TextEncoder.prototype.encode;
let encoder: TextEncoder | undefined;

/** Texts up to this many UTF-16 units are counted by the loop, which allocates nothing. */
const COUNTED_IN_PLACE = 1_024;

/**
 * UTF-8 byte length of a string, avoiding the encode when the answer is obvious.
 * @param text - the string to measure
 */
export function utf8Bytes(text: string): number {
  // UTF-8 needs at most 3 bytes per UTF-16 unit, and at least 1. A mid-sized text is encoded
  // natively (one allocation of at most 64 KiB); short and huge ones are counted in place.
  if (text.length > COUNTED_IN_PLACE && text.length * 3 <= 65_536) {
    encoder ??= new TextEncoderClass();
    return (apply(encode, encoder, [text]) as Uint8Array).byteLength;
  }
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair
      i++;
    } else bytes += 3; // the rest of the BMP, and a lone surrogate (encoded as U+FFFD)
  }
  return bytes;
}

/**
 * The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, never splitting a surrogate
 * pair. Reads at most `maxBytes` units, so clipping a huge string costs only what is kept.
 * @param text - the string to clip
 * @param maxBytes - the byte budget
 */
export function clipUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate is a 4-byte pair only with a low one after it; a lone one encodes as
    // U+FFFD (3 bytes), like the rest of the BMP.
    const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    if (pair) i++;
  }
  return text.slice(0, i);
}

/**
 * `text` cut to at most `maxChars` UTF-16 units plus a mark saying how much was cut, for
 * error names and messages, which have no structure to truncate.
 * @param text - the text
 * @param maxChars - units kept before the mark
 */
export function capText(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}…[+${text.length - maxChars} chars]`;
}

/**
 * Returns JSON text for `tree` that fits in `maxBytes` UTF-8 bytes.
 * @param tree - the wire tree to serialize
 * @param maxBytes - the byte budget (at least 64 is sensible)
 */
export function shrinkToFit(tree: Wire, maxBytes: number): Shrunk {
  const full = stringify(tree);
  const originalBytes = utf8Bytes(full);
  if (originalBytes <= maxBytes) return { text: full, truncated: false, originalBytes };

  let limits: Limits = { chars: Math.max(16, Math.floor(maxBytes / 2)), items: 1_000, depth: 32 };
  for (;;) {
    const text = stringify(prune(tree, limits, 0));
    if (utf8Bytes(text) <= maxBytes) return { text, truncated: true, originalBytes };
    if (limits.chars <= 16 && limits.items <= 1 && limits.depth <= 1) break;
    limits = {
      chars: Math.max(16, Math.floor(limits.chars / 2)),
      items: Math.max(1, Math.floor(limits.items / 2)),
      depth: limits.chars <= 64 ? Math.max(1, limits.depth - 4) : limits.depth,
    };
  }
  // Even the smallest shape is over budget (a tiny budget): say so in a string that fits.
  const note = `…[result of ${originalBytes} bytes exceeds the ${maxBytes}-byte limit]`;
  let text = stringify(note);
  for (
    let keep = note.length;
    keep > 0 && utf8Bytes(text) > maxBytes;
    keep = Math.floor(keep * 0.8)
  ) {
    text = stringify(note.slice(0, keep));
  }
  return { text: utf8Bytes(text) <= maxBytes ? text : "null", truncated: true, originalBytes };
}

function prune(node: Wire, limits: Limits, depth: number): Wire {
  if (typeof node === "string") {
    return node.length > limits.chars
      ? `${node.slice(0, limits.chars)}…[+${node.length - limits.chars} chars]`
      : node;
  }
  if (node === null || typeof node !== "object") return node;
  if (depth >= limits.depth) return "…[depth]";
  if (isArray(node)) {
    const kept = node.slice(0, limits.items).map((item) => prune(item, limits, depth + 1));
    if (node.length > limits.items) kept.push(`…[+${node.length - limits.items} items]`);
    return kept;
  }
  const names = keys(node);
  const out: { [key: string]: Wire } = {};
  for (const key of names.slice(0, limits.items))
    out[key] = prune(node[key] ?? null, limits, depth + 1);
  if (names.length > limits.items) out["…"] = `[+${names.length - limits.items} keys]`;
  return out;
}
