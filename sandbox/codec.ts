/**
 * Wire codec for values crossing between host and sandbox.
 *
 * Why not rely on RPC structured clone alone: a function inside a value would cross as a live
 * stub (a capability the other side never meant to grant), cycles and class instances behave
 * differently on each side, and the result must be measured and truncated as text before it
 * crosses (one RPC value is capped at 32 MiB). So values cross as JSON text of a "wire tree":
 * plain JSON plus tagged objects `{ "$cm": tag, ... }` for what JSON cannot carry.
 *
 * Tags: undefined, bigint, number (NaN, ±Infinity, -0), date, bytes (Uint8Array, base64),
 * arraybuffer, map, set, error, circular, function, symbol, and `object` to escape a user
 * object that itself has a `$cm` key. Decoding is tolerant: a malformed tag decodes to itself.
 * Runs on both sides: the host imports it directly, the sandbox bundle includes it.
 *
 * This module is the encoder (the walk and its counting, the definitions that build the tree,
 * the writer); the decoder is codec-decode.ts and base64 codec-base64.ts.
 *
 * Host calls carry binary values of {@link BESIDE_MIN_BYTES} or more beside the text
 * ({@link encodeParts}): the tag holds the index `i` of an ArrayBuffer sent with it, which RPC
 * (and the engine runner) copies as bytes. As base64 inside the text, a 4 MiB body was a 5.6 MB
 * string, its JSON text and RPC's copy of it: ~28 MB of garbage on the host per body handed over
 * (bench/README.md, "Random bytes in the real host: where the time goes"). The result of a run
 * stays text (it is measured and shrunk as text), so bytes there stay base64.
 */

import { binarySpan, copySpan, spanBytes, type BinarySpan } from "./binary-span";
import { toBase64 } from "./codec-base64";
import { TAG, assignable, defineData, plainPrototypes, writeWire, type Wire } from "./codec-tree";

export { TAG, type Wire } from "./codec-tree";

// Captured when the module loads (in the sandbox: before any user code), so a program that
// replaces JSON or Object methods cannot change how the harness encodes. Prototype methods of
// the program's own values stay under its control; the host re-checks whatever arrives.
const { stringify } = JSON;
const { keys, hasOwn, getPrototypeOf, is } = Object;
const { isArray } = Array;
const { isNaN, isFinite } = Number;
const { apply } = Reflect;
const { floor } = Math;
const objectPrototype = Object.prototype;
const mapForEach = Map.prototype.forEach;
const setForEach = Set.prototype.forEach;
// The engine's own accessor (absent in engines without resizable buffers: none are then).
const bufferResizable = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable")?.get;

/** Maximum nesting the encoder follows; deeper values become a marker (stack safety). */
const MAX_DEPTH = 200;

/**
 * Binary values at least this long cross a host call beside its text ({@link encodeParts}); smaller
 * ones stay base64 inside it, where they cost less than a buffer of their own. It also bounds how
 * many buffers one call may carry: no more than its byte limit over this.
 */
export const BESIDE_MIN_BYTES = 1_024;

/** Wire JSON text and the binary values carried beside it (the tags' `i` index `bytes`). */
export interface WireParts {
  text: string;
  bytes: ArrayBuffer[];
  /**
   * Bytes of every value meant to go beside; past the encoder's `maxBytes` the rest are counted,
   * not copied (the call is refused by its size anyway).
   */
  byteCount: number;
  /**
   * Present when the text and bytes were over the encoder's `maxBytes`: the encoding stopped
   * there, `text` is empty and `byteCount` what was counted when it stopped.
   */
  over?: true;
}

/** What the encoder collects beside the text while it walks a value. */
interface Beside {
  buffers: ArrayBuffer[];
  bytes: number;
  maxBytes: number;
  /** Whether a view that covers its whole buffer may send that buffer itself (host values). */
  own: boolean;
  /**
   * The buffers sent as they are (when `own`): one sent again is copied, since RPC delivers a
   * buffer sent twice in one message as one, and two decoded values would share its bytes.
   */
  sent: Set<ArrayBuffer> | undefined;
  /**
   * UTF-16 units of wire text made so far, at least (each is at least one UTF-8 byte): with
   * `bytes`, checked against `maxBytes` as the encoder goes, so a call over its limit stops
   * there instead of after its whole text exists.
   */
  chars: number;
  /** Whether the tree may be built by assignment ({@link assignable}), else by definitions. */
  assign: boolean;
}

/**
 * Thrown inside the encoder when a host call's text and bytes are over its limit; caught by
 * {@link encodeParts}, never seen outside this module. A unique object: a program's value cannot
 * throw it (it never leaves this module).
 */
const OVER_LIMIT = { over: true };

/** Counts `units` of text made for a host call, and stops the encoding once it is over. */
function count(beside: Beside | undefined, units: number): void {
  if (beside === undefined) return;
  beside.chars += units;
  if (beside.chars + beside.bytes > beside.maxBytes) throw OVER_LIMIT;
}

/**
 * Turns any value into a wire tree. Never throws: unsupported values become tagged markers.
 * @param value - the value to encode
 */
export function toWire(value: unknown): Wire {
  return encode(value, new Set<object>(), 0, undefined);
}

function encode(
  value: unknown,
  seen: Set<object>,
  depth: number,
  beside: Beside | undefined,
): Wire {
  // Lower bounds of each value's text: quotes, commas, brackets; a tag's own keys at least 8.
  switch (typeof value) {
    case "string":
      count(beside, value.length + 3);
      return value;
    case "boolean":
      count(beside, 5);
      return value;
    case "number":
      count(beside, 2);
      if (isNaN(value)) return { [TAG]: "number", v: "NaN" };
      if (value === Infinity) return { [TAG]: "number", v: "Infinity" };
      if (value === -Infinity) return { [TAG]: "number", v: "-Infinity" };
      if (is(value, -0)) return { [TAG]: "number", v: "-0" };
      return value;
    case "undefined":
      count(beside, 8);
      return { [TAG]: "undefined" };
    case "bigint": {
      const v = value.toString();
      count(beside, v.length + 8);
      return { [TAG]: "bigint", v };
    }
    case "function": {
      const name = value.name || "anonymous";
      count(beside, 8 + (typeof name === "string" ? name.length : 0));
      return { [TAG]: "function", name };
    }
    case "symbol": {
      const description = value.description ?? "";
      count(beside, 8 + description.length);
      return { [TAG]: "symbol", description };
    }
  }
  count(beside, 5);
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return { [TAG]: "circular" };
  if (depth >= MAX_DEPTH) return { [TAG]: "depth" };
  seen.add(obj);
  try {
    return encodeObject(obj, seen, depth + 1, beside);
  } finally {
    seen.delete(obj);
  }
}

function encodeObject(
  obj: object,
  seen: Set<object>,
  depth: number,
  beside: Beside | undefined,
): Wire {
  // Not the array's own `map`: in the sandbox that is the program's, which could return any tree
  // (one string a million times) past the count above. A hole encodes as JSON would say it: null.
  if (isArray(obj)) {
    const out: Wire[] = [];
    const length = obj.length;
    for (let i = 0; i < length; i++) {
      let item: Wire = null;
      if (hasOwn(obj, i)) item = encode((obj as unknown[])[i], seen, depth, beside);
      else count(beside, 5);
      // Defined, not assigned: an index setter up the prototype chain is the program's.
      define(out, i, item, beside);
    }
    return out;
  }
  if (obj instanceof Date) {
    return { [TAG]: "date", v: isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString() };
  }
  // Typed arrays and DataViews cross as "bytes" (a Uint8Array), as they always did.
  const span = binarySpan(obj);
  if (span) return encodeBinary(span, beside);
  // Not the program's iterators or `map` (a Map's or Set's `Symbol.iterator`, `next`, an array's
  // `map` can all be replaced): the engine's own `forEach`, captured when the module loaded.
  if (obj instanceof Map) {
    const v: Wire[] = [];
    apply(mapForEach, obj, [
      (item: unknown, key: unknown) =>
        define(
          v,
          v.length,
          [encode(key, seen, depth, beside), encode(item, seen, depth, beside)],
          beside,
        ),
    ]);
    return { [TAG]: "map", v };
  }
  if (obj instanceof Set) {
    const v: Wire[] = [];
    apply(setForEach, obj, [
      (item: unknown) => define(v, v.length, encode(item, seen, depth, beside), beside),
    ]);
    return { [TAG]: "set", v };
  }
  if (obj instanceof Error) {
    // Only strings: a getter could answer with any value, which JSON would write uncounted.
    const { name, message } = obj as { name: unknown; message: unknown };
    const error = {
      [TAG]: "error",
      name: typeof name === "string" ? name : "Error",
      message: typeof message === "string" ? message : "",
    };
    count(beside, error.name.length + error.message.length + 8);
    return error;
  }
  const out: { [key: string]: Wire } = {};
  for (const key of keys(obj)) {
    const item = (obj as Record<string, unknown>)[key];
    // JSON semantics for plain objects: properties holding undefined or functions are dropped.
    if (item === undefined || typeof item === "function") continue;
    count(beside, key.length + 3);
    // Defined, not assigned: a setter on Object.prototype is the program's (it could add values
    // to this tree that no count saw), and a "__proto__" key must stay an own property.
    define(out, key, encode(item, seen, depth, beside), beside);
  }
  return TAG in out ? { [TAG]: "object", v: out } : out;
}

/**
 * Sets `key` on a tree the encoder makes. Assigned when that is safe (no accessor or read-only
 * property on Array.prototype or Object.prototype: {@link assignable}), else defined, which is
 * ~5× slower (a 0.6 MB JSON argument: 34 ms, not 6): an accessor there is the program's, and a
 * setter could add values to this tree that no count saw.
 */
function define(
  target: object,
  key: string | number,
  value: Wire,
  beside: Beside | undefined,
): void {
  if ((beside === undefined || beside.assign) && key !== "__proto__") {
    (target as Record<string | number, Wire>)[key] = value;
    return;
  }
  defineData(target, key, value);
}

/**
 * A binary value's tag: beside the text when there is room for it ({@link encodeParts}) and it is
 * large enough, else its bytes as base64 inside.
 */
function encodeBinary(span: BinarySpan, beside: Beside | undefined): Wire {
  if (!beside || span.length < BESIDE_MIN_BYTES) {
    // Counted before the text is made: a 1,023-byte view a million times was 1.4 GB of it.
    count(beside, floor((span.length + 2) / 3) * 4 + 8);
    return { [TAG]: span.kind, v: toBase64(spanBytes(span)) };
  }
  const i = beside.buffers.length;
  beside.bytes += span.length;
  count(beside, 8);
  // Past the limit the call is refused by its size: nothing more is copied for it.
  // Defined, not pushed: in the sandbox `push` (and a setter at an index up the prototype
  // chain) is the program's, which made the harness send buffers of its choosing (empty ones,
  // one twice, a resizable or shared one).
  if (beside.bytes <= beside.maxBytes) {
    defineData(beside.buffers, i, besideBuffer(span, beside));
  }
  return { [TAG]: span.kind, i };
}

/**
 * The buffer that carries a span beside the text: a copy of exactly its bytes, or (host values)
 * the span's own buffer when it is all of it and not sent already, which RPC copies anyway.
 */
function besideBuffer(span: BinarySpan, beside: Beside): ArrayBuffer {
  const { buffer } = span;
  if (
    beside.own &&
    span.offset === 0 &&
    span.length === buffer.byteLength &&
    // RPC sends a resizable buffer as one: the per-run isolate's program could grow it, the
    // engine's could not (binary-values.test.ts). A copy is fixed on both.
    !(bufferResizable && apply(bufferResizable, buffer, []) === true)
  ) {
    // A host answer holding one buffer twice (a view and its buffer, one array in two places):
    // sent twice as it is, the per-run isolate decoded both values onto one buffer (writing one
    // changed the other) while the engine runner copied each (binary-values.test.ts).
    const sent = (beside.sent ??= new Set());
    if (!sent.has(buffer)) {
      sent.add(buffer);
      return buffer;
    }
  }
  return copySpan(span);
}

/**
 * Encodes a value as wire JSON text.
 * @param value - any value
 */
export function encodeValue(value: unknown): string {
  // Most values (API responses, arguments) are plain JSON already: stringify them as they are
  // instead of building a wire copy first. One host call encodes and decodes twice per side.
  return plainJsonText(value) ?? stringify(toWire(value));
}

/**
 * Encodes a host call's value (its arguments, or its answer) as wire JSON text with its larger
 * binary values beside it ({@link BESIDE_MIN_BYTES}), or as text alone when it has none. Throws a
 * TypeError for binary data that cannot cross (binary-span.ts).
 * @param value - any value
 * @param maxBytes - past this many bytes beside, the rest are counted but not copied (a call's
 *   byte limit: a call over it is refused by its size before it crosses)
 * @param own - whether a buffer a view covers whole may go itself (the host's values, which RPC
 *   copies), rather than a copy (the sandbox: a program's buffer may be resizable or changed)
 */
export function encodeParts(
  value: unknown,
  maxBytes: number = Infinity,
  own = false,
): string | WireParts {
  // The fast path reads a value twice (the check, then JSON): a program's getter, Proxy or
  // `toJSON` may answer small the first time and a million-fold string the second, which JSON
  // would write whole before any limit. Only the host's own answers take it.
  if (own) {
    const plain = plainJsonText(value);
    if (plain !== undefined) return plain;
  }
  const beside: Beside = {
    buffers: [],
    bytes: 0,
    maxBytes,
    own,
    sent: undefined,
    chars: 0,
    assign: own || assignable(),
  };
  let wire: Wire;
  try {
    wire = encode(value, new Set<object>(), 0, beside);
    // A getter of the program's may have put a setter in place while the tree was assigned:
    // then the tree is made again, defined (the program's getters run again; what they answer
    // is counted as the first time).
    if (beside.assign && !assignable()) {
      beside.assign = false;
      beside.buffers = [];
      beside.bytes = 0;
      beside.chars = 0;
      beside.sent = undefined;
      wire = encode(value, new Set<object>(), 0, beside);
    }
  } catch (error) {
    if (error !== OVER_LIMIT) throw error;
    return { text: "", bytes: [], byteCount: beside.bytes, over: true };
  }
  // The tree is the encoder's own (defined properties, counted); JSON would still call a
  // `toJSON` found on its prototypes, which in the sandbox a program may have defined.
  const text = own || plainPrototypes() ? stringify(wire) : writeWire(wire);
  return beside.bytes === 0 ? text : { text, bytes: beside.buffers, byteCount: beside.bytes };
}

/**
 * JSON text of `value` when JSON carries it exactly (see isPlainJson), else undefined: the text
 * {@link encodeValue} and the tagged encoder would produce for it, without the encoder's walk.
 * @param value - any value
 */
export function plainJsonText(value: unknown): string | undefined {
  return isPlainJson(value, 0) ? stringify(value) : undefined;
}

/**
 * Whether JSON.stringify would carry `value` exactly: only strings, finite numbers (not -0),
 * booleans, null, arrays and plain objects (no `$cm` key, no undefined or function values), no
 * cycles, not deeper than the encoder follows. Trees are checked, not graphs: a shared object is
 * walked once per place, as JSON.stringify would.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return isFinite(value) && !is(value, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  // Deep enough that a cycle would get here; the tagged encoder marks cycles and depth.
  if (depth >= MAX_DEPTH) return false;
  if (isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  const proto = getPrototypeOf(value) as unknown;
  if (proto !== objectPrototype && proto !== null) return false;
  for (const key in value) {
    if (key === TAG || !hasOwn(value, key)) return false;
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
