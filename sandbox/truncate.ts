/**
 * Structural truncation: shrinks a wire tree (see codec.ts) until its JSON text fits a byte
 * budget, keeping it valid JSON and marking every cut in place, so a model reading the result
 * knows what is missing instead of getting text chopped mid-token.
 *
 * Marks: a cut string ends with `…[+N chars]`; a cut array ends with the string
 * `…[+N items]`; a cut object gets the key `"…"` with `"[+N keys]"`; a subtree below the depth
 * limit becomes `"…[depth]"`. Limits tighten geometrically, so a result costs O(log n) passes
 * over at most the kept part, never more than one pass over the whole value.
 *
 * A program's result is not shrunk from its whole wire tree: the result encoder
 * (codec-result.ts) keeps only what the first pass can use ({@link FIRST_LIMITS}) as a
 * {@link Kept} tree, whose {@link Cut} nodes know how long the whole string, array or object
 * was, so the marks read as they would for the whole tree. No pass calls a method of the
 * program's (its Array.prototype `slice`, `map`, `push`, a setter or a `toJSON` up the chain).
 */
import { assignable, defineData, plainPrototypes, writeWire, type Wire } from "./codec-tree";

/** What {@link shrinkToFit} returns. */
export interface Shrunk {
  /** JSON text of the (possibly truncated) tree; always parses. */
  text: string;
  /** Whether anything was cut. */
  truncated: boolean;
  /**
   * UTF-8 size of the untruncated JSON text; for a result the encoder stopped counting
   * (codec-result.ts: many times more than the limit), what it had counted by then.
   */
  originalBytes: number;
}

/** How much of a tree one pass keeps: string units, items or keys per node, nesting. */
export interface Limits {
  chars: number;
  items: number;
  depth: number;
}

/**
 * The first pass's limits for a byte budget: later passes keep less. What a {@link Kept} tree
 * must hold of a value for every pass to read as it would over the whole wire tree.
 * @param maxBytes - the byte budget
 */
export function firstLimits(maxBytes: number): Limits {
  return { chars: max(16, floor(maxBytes / 2)), items: 1_000, depth: 32 };
}

/** A string, array or object the result encoder kept only in part, with its whole length. */
export type Cut =
  | { readonly kind: "string"; readonly text: string; readonly total: number }
  | { readonly kind: "array"; readonly items: Kept[]; readonly total: number }
  | {
      readonly kind: "object";
      readonly names: string[];
      readonly values: Kept[];
      readonly total: number;
    }
  /** A value nested deeper than any pass keeps, not built. */
  | { readonly kind: "deep" };

/** A wire tree of which parts may be {@link Cut}. */
export type Kept = Wire | Cut | Kept[] | { [key: string]: Kept };

// Captured when the module loads, before any user code: a program that replaces JSON, Object,
// Reflect or TextEncoder methods changes nothing here. (Prototype methods of its own values stay
// under its control; the host re-checks every size, so that can only spoil the program's own
// output.) The encoder itself is made on first use: making one is a measurable part of a fresh
// sandbox isolate's start (about 0.15 ms of ~2.8), and short texts are counted without it.
const { stringify } = JSON;
const { keys, getPrototypeOf, freeze, create } = Object;
const { isArray } = Array;
const { apply } = Reflect;
const { max, floor } = Math;
// Not the program's: methods of a string are looked up on String.prototype, and a typed
// array's `byteLength` on its prototype. A program that replaced them counted a 9 KB result as
// 1 byte (test/workers/executor/hostile/programs.test.ts).
const textSlice = String.prototype.slice;
const charCodeAt = String.prototype.charCodeAt;
// The engine's own `exec` on a regular expression of this module's (not global: no state).
const regExpExec = RegExp.prototype.exec;
const NOT_ASCII = /[^\0-\x7f]/;
const typedByteLength = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  "byteLength",
)?.get as (this: Uint8Array) => number;
const TextEncoderClass = TextEncoder;
const encode = TextEncoder.prototype.encode;
let encoder: TextEncoder | undefined;

/** Texts up to this many UTF-16 units are counted by the loop, which allocates nothing. */
const COUNTED_IN_PLACE = 1_024;

/**
 * The prototype of every {@link Cut}: a frozen object of this module's, so a cut is told from a
 * wire object without reading a property (a lookup could reach the program's prototypes).
 */
const CUT = freeze(create(null) as object);

/**
 * Makes a {@link Cut} (its fields defined by the literal, never assigned).
 * @param cut - its fields
 * @returns the cut node
 */
export function cutNode(cut: Cut): Cut {
  return { __proto__: CUT, ...cut } as unknown as Cut;
}

function isCut(node: object): node is Cut {
  return getPrototypeOf(node) === CUT;
}

/**
 * UTF-8 byte length of a string, avoiding the encode when the answer is obvious.
 * @param text - the string to measure
 */
export function utf8Bytes(text: string): number {
  // UTF-8 needs at most 3 bytes per UTF-16 unit, and at least 1. An ASCII text (most results)
  // is told by one native search; a mid-sized other text is encoded natively (one allocation of
  // at most 64 KiB); short and huge ones are counted in place.
  if (text.length > COUNTED_IN_PLACE && apply(regExpExec, NOT_ASCII, [text]) === null)
    return text.length;
  if (text.length > COUNTED_IN_PLACE && text.length * 3 <= 65_536) {
    encoder ??= new TextEncoderClass();
    return apply(typedByteLength, apply(encode, encoder, [text]) as Uint8Array, []);
  }
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = apply(charCodeAt, text, [i]) as number;
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (
      c >= 0xd800 &&
      c <= 0xdbff &&
      ((apply(charCodeAt, text, [i + 1]) as number) & 0xfc00) === 0xdc00
    ) {
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
    const c = apply(charCodeAt, text, [i]) as number;
    // A high surrogate is a 4-byte pair only with a low one after it; a lone one encodes as
    // U+FFFD (3 bytes), like the rest of the BMP.
    const pair =
      c >= 0xd800 &&
      c <= 0xdbff &&
      ((apply(charCodeAt, text, [i + 1]) as number) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    if (pair) i++;
  }
  return apply(textSlice, text, [0, i]) as string;
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
    : `${apply(textSlice, text, [0, maxChars]) as string}…[+${text.length - maxChars} chars]`;
}

/**
 * Returns JSON text for `tree` that fits in `maxBytes` UTF-8 bytes.
 * @param tree - the wire tree to serialize
 * @param maxBytes - the byte budget (at least 64 is sensible)
 */
export function shrinkToFit(tree: Wire, maxBytes: number): Shrunk {
  const full = writeTree(tree);
  const originalBytes = utf8Bytes(full);
  if (originalBytes <= maxBytes) return { text: full, truncated: false, originalBytes };
  return shrinkKept(tree, maxBytes, originalBytes);
}

/**
 * JSON text of a tree this module or the encoder made: JSON's own walk while no `toJSON` is on
 * Array.prototype or Object.prototype (JSON would call it for every array or object), else the
 * codec's writer.
 * @param tree - a wire tree of the harness's own
 */
export function writeTree(tree: Wire): string {
  return plainPrototypes() ? stringify(tree) : writeWire(tree);
}

/** One pass: whether it reached a part of the tree that was not kept, and how to set keys. */
interface Pass {
  limits: Limits;
  /** Set when the pass needed more than the tree kept: its text would not be the whole's. */
  missing: boolean;
  assign: boolean;
}

/**
 * JSON text within `maxBytes` for a tree that is over it: the first pass (limits tightening
 * geometrically) that fits and needed nothing the tree did not keep, else a note.
 * @param tree - the tree, whole or kept in part
 * @param maxBytes - the byte budget
 * @param originalBytes - the whole tree's size, for the note
 */
export function shrinkKept(tree: Kept, maxBytes: number, originalBytes: number): Shrunk {
  // Read once: no code of the program's runs while a pass builds its tree.
  const assign = assignable();
  let limits = firstLimits(maxBytes);
  for (;;) {
    const pass: Pass = { limits, missing: false, assign };
    const pruned = prune(tree, pass, 0);
    if (!pass.missing) {
      const text = writeTree(pruned);
      if (utf8Bytes(text) <= maxBytes) return { text, truncated: true, originalBytes };
    }
    if (limits.chars <= 16 && limits.items <= 1 && limits.depth <= 1) break;
    limits = {
      chars: max(16, floor(limits.chars / 2)),
      items: max(1, floor(limits.items / 2)),
      depth: limits.chars <= 64 ? max(1, limits.depth - 4) : limits.depth,
    };
  }
  // Even the smallest shape is over budget (a tiny budget): say so in a string that fits.
  const note = `…[result of ${originalBytes} bytes exceeds the ${maxBytes}-byte limit]`;
  let text = stringify(note);
  for (let keep = note.length; keep > 0 && utf8Bytes(text) > maxBytes; keep = floor(keep * 0.8)) {
    text = stringify(apply(textSlice, note, [0, keep]) as string);
  }
  return { text: utf8Bytes(text) <= maxBytes ? text : "null", truncated: true, originalBytes };
}

/** `text` (at least `chars` units of a string `total` long) cut to `chars`, marked. */
function cutText(text: string, total: number, chars: number): string {
  return `${apply(textSlice, text, [0, chars]) as string}…[+${total - chars} chars]`;
}

/** Sets `key` on a pass's own tree (defined while a setter up the chain may be the program's). */
function put(target: object, key: string | number, value: Wire, pass: Pass): void {
  if (pass.assign && key !== "__proto__") (target as Record<string | number, Wire>)[key] = value;
  else defineData(target, key, value);
}

function prune(node: Kept, pass: Pass, depth: number): Wire {
  const { limits } = pass;
  if (typeof node === "string") {
    return node.length > limits.chars ? cutText(node, node.length, limits.chars) : node;
  }
  if (node === null || typeof node !== "object") return node;
  const cut = isCut(node) ? node : undefined;
  if (cut?.kind === "string") {
    if (cut.total > limits.chars && cut.text.length >= limits.chars)
      return cutText(cut.text, cut.total, limits.chars);
    pass.missing = true;
    return cut.text;
  }
  if (depth >= limits.depth) return "…[depth]";
  if (cut?.kind === "deep") {
    pass.missing = true;
    return "…[depth]";
  }
  if (cut?.kind === "array" || isArray(node)) {
    const items = cut?.kind === "array" ? cut.items : (node as Kept[]);
    const total = cut?.kind === "array" ? cut.total : items.length;
    let n = total < limits.items ? total : limits.items;
    if (n > items.length) {
      pass.missing = true;
      n = items.length;
    }
    const out: Wire[] = [];
    for (let i = 0; i < n; i++) put(out, i, prune(items[i] ?? null, pass, depth + 1), pass);
    if (total > limits.items) put(out, n, `…[+${total - limits.items} items]`, pass);
    return out;
  }
  let names: string[];
  let values: Kept[] | undefined;
  let total: number;
  if (cut?.kind === "object") {
    ({ names, values, total } = cut);
  } else {
    names = keys(node);
    total = names.length;
  }
  let n = total < limits.items ? total : limits.items;
  if (n > names.length) {
    pass.missing = true;
    n = names.length;
  }
  const out: { [key: string]: Wire } = {};
  for (let i = 0; i < n; i++) {
    const key = names[i] as string;
    const value = values ? values[i] : (node as { [key: string]: Kept })[key];
    put(out, key, prune(value ?? null, pass, depth + 1), pass);
  }
  if (total > limits.items) put(out, "…", `[+${total - limits.items} keys]`, pass);
  return out;
}
