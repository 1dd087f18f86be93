/**
 * The program's result as JSON text within the run's result limit, without first building the
 * whole wire tree or text (issue #40: work bounded by the limit, not by what the program can
 * make a walk repeat). The text is what `JSON.stringify(toWire(value))` (codec.ts) would be,
 * and when that is over the limit, what truncate.ts makes of it.
 *
 * Why not `toWire` then shrink: a value's wire tree can be vastly larger than the value. One
 * 1,023-byte view a million times is 1.4 GB of base64; an array doubled 40 times has 2^40
 * leaves. Walking such a tree whole took 15 s on the per-run isolate and ran the shared
 * worker's engine out of memory. So the walk here keeps only what shrinking can use (a prefix
 * of each string, the first items and keys of each node, a bounded total: truncate.ts
 * `firstLimits`), counts the rest without keeping it, and stops counting past a budget.
 *
 * No method of the program's is called: Set, Map, Date, BigInt, Symbol and String methods are
 * the ones captured when the module loaded (in the sandbox, before any user code), and the
 * trees are written without JSON's walk while a `toJSON` may sit on their prototypes.
 */

import { binarySpan, spanBytes, type BinarySpan } from "./binary-span";
import { toBase64 } from "./codec-base64";
import { TAG, assignable, defineData, type Wire } from "./codec-tree";
import {
  cutNode,
  firstLimits,
  shrinkKept,
  utf8Bytes,
  writeTree,
  type Kept,
  type Shrunk,
} from "./truncate";

// Captured when the module loads (in the sandbox: before any user code).
const { stringify } = JSON;
const { keys, hasOwn, getOwnPropertyDescriptor, is } = Object;
const { isArray } = Array;
const { isNaN } = Number;
const { apply } = Reflect;
const { floor, ceil } = Math;
const SetClass = Set;
const setHas = Set.prototype.has;
const setAdd = Set.prototype.add;
const setDelete = Set.prototype.delete;
const MapClass = Map;
const mapForEach = Map.prototype.forEach;
const setForEach = Set.prototype.forEach;
const mapSize = getOwnPropertyDescriptor(Map.prototype, "size")?.get as (this: object) => number;
const setSize = getOwnPropertyDescriptor(Set.prototype, "size")?.get as (this: object) => number;

/**
 * Thrown out of a Map's or Set's `forEach` when the walk stopped; caught where it is called. A
 * module-private object: no value of the program's can be it.
 */
const STOPPED = { stopped: true };
const DateClass = Date;
const dateTime = Date.prototype.getTime;
const dateIso = Date.prototype.toISOString;
const ErrorClass = Error;
const textSlice = String.prototype.slice;
const charCodeAt = String.prototype.charCodeAt;
const bigintText: ((this: bigint) => string) | undefined =
  typeof BigInt === "function" ? BigInt.prototype.toString : undefined;
const symbolDescription = getOwnPropertyDescriptor(Symbol.prototype, "description")?.get;

/** Maximum nesting the walk follows, as codec.ts's encoder: deeper values become a marker. */
const MAX_DEPTH = 200;

/** Strings at least this long are measured once however often the value holds them. */
const MEASURED_ONCE = 1_024;

/**
 * Bytes of wire text counted before the count stops (then the result's size is reported as
 * what was counted): several times the limit, so most honest big results are measured whole
 * (one string of any length is: it is measured before the budget is checked). Counting costs
 * up to ~30 ns a byte for the smallest values in V8 (an array doubled 40 times: ~0.2 s of CPU
 * for 8 MiB) and far more in the shared worker's engine, which charges it to the run's
 * operations: the budget bounds both.
 * @param maxBytes - the run's result limit
 */
function countBudget(maxBytes: number): number {
  return 8 * maxBytes > 8 * 1_048_576 ? 8 * maxBytes : 8 * 1_048_576;
}

/**
 * Bytes of text kept for shrinking, at most: several times the limit, so that the first pass of
 * truncate.ts (up to 1,000 items a node) finds what it needs for results of common shapes (a
 * list of rows and a few fields after it). A pass that needs more than was kept counts as over
 * the limit (truncate.ts `shrinkKept`): the text is then smaller than the whole tree's would be.
 * @param maxBytes - the run's result limit
 */
function keepBudget(maxBytes: number): number {
  return 4 * maxBytes > 1_048_576 ? 4 * maxBytes : 1_048_576;
}

/** Where one walk of the program's value stands. */
interface Walk {
  /** UTF-8 bytes of the value's wire JSON text counted so far. */
  bytes: number;
  /** Past this many, the walk stops: nothing after is walked. */
  maxCount: number;
  /** Whether the walk goes on (false once `bytes` passed `maxCount`). */
  counting: boolean;
  /** Bytes of the parts kept so far; past `maxBuilt`, nothing more is kept. */
  built: number;
  maxBuilt: number;
  /** Units kept of a string, items or keys of an array or object, nesting of wire nodes. */
  keepChars: number;
  keepItems: number;
  keepDepth: number;
  /**
   * Whether sizes are counted exactly (for the note on a cut result), or as a lower bound that
   * only has to tell when the text is surely over the limit (the first, whole walk).
   */
  exact: boolean;
  /** Whether anything was kept only in part. */
  cut: boolean;
  /** Whether a tree may be built by assignment (codec-tree.ts `assignable`). */
  assign: boolean;
  /** The objects on the path walked (a cycle becomes a marker). */
  seen: Set<object>;
  /** The last long string measured, and its size. */
  lastText: string;
  lastTextBytes: number;
}

function newWalk(maxBytes: number, whole: boolean): Walk {
  const first = firstLimits(maxBytes);
  return {
    bytes: 0,
    // The whole value is kept, as long as its text may fit.
    maxCount: whole ? maxBytes : countBudget(maxBytes),
    counting: true,
    built: 0,
    maxBuilt: whole ? Infinity : keepBudget(maxBytes),
    keepChars: whole ? Infinity : first.chars,
    keepItems: whole ? Infinity : first.items,
    keepDepth: whole ? Infinity : first.depth,
    exact: !whole,
    cut: false,
    assign: assignable(),
    seen: new SetClass<object>(),
    lastText: "",
    lastTextBytes: 0,
  };
}

/**
 * The result as JSON text within `maxBytes`: the wire text whole when it fits, else shrunk
 * (truncate.ts) from the part of it a bounded walk kept.
 * @param value - what the program returned
 * @param maxBytes - the run's result limit in UTF-8 bytes
 * @returns the text, whether it was shrunk, and the full size (or what was counted of it)
 */
export function encodeResult(value: unknown, maxBytes: number): Shrunk {
  // First the whole value, stopping as soon as it is surely over the limit: most results fit.
  // Sizes are lower bounds here (a string's units, a number's one digit), so the tree kept is
  // at most a few times the limit (escapes, long numbers); its text is measured exactly.
  const whole = newWalk(maxBytes, true);
  const tree = walk(value, 0, 0, true, whole) as Wire;
  if (whole.counting) {
    const text = writeTree(tree);
    const bytes = utf8Bytes(text);
    if (bytes <= maxBytes) return { text, truncated: false, originalBytes: bytes };
  }
  // Over the limit: walk again, keeping what shrinking uses and counting the rest.
  const kept = newWalk(maxBytes, false);
  kept.lastText = whole.lastText;
  kept.lastTextBytes = whole.lastTextBytes;
  const cut = walk(value, 0, 0, true, kept);
  return shrinkKept(cut, maxBytes, kept.bytes);
}

/** Counts `bytes` of wire text; past the budget, the walk stops. */
function add(state: Walk, bytes: number): void {
  state.bytes += bytes;
  if (state.bytes > state.maxCount) state.counting = false;
}

/** Counts `bytes` of text that is also kept; past the keeping budget, nothing more is kept. */
function keep(state: Walk, bytes: number): void {
  state.built += bytes;
}

/** Whether the next part is kept. */
function keeping(state: Walk): boolean {
  return state.built <= state.maxBuilt;
}

/** UTF-8 bytes of `text` as a JSON string (quotes and escapes included). */
function textBytes(state: Walk, text: string): number {
  if (!state.exact) return text.length + 2;
  if (text.length < MEASURED_ONCE) return shortTextBytes(text);
  // One string held a million times is measured once (V8 compares a string with itself at once).
  if (text === state.lastText) return state.lastTextBytes;
  const bytes = utf8Bytes(stringify(text));
  state.lastText = text;
  state.lastTextBytes = bytes;
  return bytes;
}

/**
 * UTF-8 bytes of a short `text` as a JSON string, counted without making that string: quotes,
 * two-character escapes (`\n`, `\"`, …), six-character ones for other control characters.
 * A surrogate (lone ones are escaped by some engines' JSON, not by others) is left to JSON.
 */
function shortTextBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = apply(charCodeAt, text, [i]) as number;
    if (c >= 0x20 && c < 0x80) bytes += c === 0x22 || c === 0x5c ? 2 : 1;
    else if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c < 0x800) bytes += 2;
    else if (c < 0xd800 || c > 0xdfff) bytes += 3;
    else return utf8Bytes(stringify(text));
  }
  return bytes;
}

/** A string as kept: whole, or its first `keepChars` units and its length. */
function keptText(state: Walk, text: string): Kept {
  if (text.length <= state.keepChars) {
    keep(state, text.length + 2);
    return text;
  }
  state.cut = true;
  keep(state, state.keepChars);
  return cutNode({
    kind: "string",
    text: apply(textSlice, text, [0, state.keepChars]) as string,
    total: text.length,
  });
}

/** Sets `key` on a tree the walk keeps, as codec.ts's `define` does. */
function put(state: Walk, target: object, key: string | number, value: Kept): void {
  if (state.assign && key !== "__proto__") (target as Record<string | number, Kept>)[key] = value;
  else defineData(target, key, value);
}

/**
 * A tag of string fields (`{ "$cm": tag, …}`), counted, and kept with long strings cut.
 * @param fields - the tag's keys and values after `$cm`, in order
 */
function tag(state: Walk, name: string, build: boolean, fields?: Record<string, string>): Kept {
  const names = fields ? keys(fields) : [];
  let bytes = 2 + 5 + 1 + textBytes(state, name);
  for (let i = 0; i < names.length; i++) {
    const key = names[i] as string;
    bytes +=
      1 +
      textBytes(state, key) +
      1 +
      textBytes(state, (fields as Record<string, string>)[key] as string);
  }
  add(state, bytes);
  if (!build) return null;
  const out: { [key: string]: Kept } = { [TAG]: name };
  keep(state, 10 + name.length);
  for (let i = 0; i < names.length; i++) {
    const key = names[i] as string;
    put(state, out, key, keptText(state, (fields as Record<string, string>)[key] as string));
  }
  return out;
}

function walk(value: unknown, depth: number, wireDepth: number, build: boolean, state: Walk): Kept {
  switch (typeof value) {
    case "string":
      add(state, textBytes(state, value));
      return build ? keptText(state, value) : null;
    case "boolean":
      add(state, value ? 4 : 5);
      if (build) keep(state, 5);
      return value;
    case "number":
      if (isNaN(value)) return tag(state, "number", build, { v: "NaN" });
      if (value === Infinity) return tag(state, "number", build, { v: "Infinity" });
      if (value === -Infinity) return tag(state, "number", build, { v: "-Infinity" });
      if (is(value, -0)) return tag(state, "number", build, { v: "-0" });
      add(state, state.exact ? numberChars(value) : 1);
      if (build) keep(state, 2);
      return value;
    case "undefined":
      return tag(state, "undefined", build);
    case "bigint":
      // The engine's own `toString`: the program's could answer with any text.
      return tag(state, "bigint", build, {
        v: bigintText ? apply(bigintText, value, []) : "0",
      });
    case "function": {
      const name = value.name;
      return tag(state, "function", build, {
        name: typeof name === "string" && name !== "" ? name : "anonymous",
      });
    }
    case "symbol": {
      const description = symbolDescription ? apply(symbolDescription, value, []) : undefined;
      return tag(state, "symbol", build, {
        description: typeof description === "string" ? description : "",
      });
    }
  }
  if (value === null) {
    add(state, 4);
    if (build) keep(state, 4);
    return null;
  }
  const obj = value as object;
  // The engine's own Set methods: a program's `has` could unroll a cycle (answering "no") or
  // mark every object circular.
  if (apply(setHas, state.seen, [obj])) return tag(state, "circular", build);
  if (depth >= MAX_DEPTH) return tag(state, "depth", build);
  // Deeper than any pass of truncate.ts keeps: counted, not kept.
  const kept = build && wireDepth < state.keepDepth;
  apply(setAdd, state.seen, [obj]);
  try {
    const node = walkObject(obj, depth + 1, wireDepth, kept, state);
    if (build && !kept) {
      state.cut = true;
      return cutNode({ kind: "deep" });
    }
    return node;
  } finally {
    apply(setDelete, state.seen, [obj]);
  }
}

/** Characters of a finite number's JSON text. */
function numberChars(value: number): number {
  // Small integers without a call: most numbers in API data.
  if (value >= 0 && value < 10 && floor(value) === value) return 1;
  return stringify(value).length;
}

function walkObject(
  obj: object,
  depth: number,
  wireDepth: number,
  build: boolean,
  state: Walk,
): Kept {
  if (isArray(obj)) return walkArray(obj, depth, wireDepth, build, state);
  if (obj instanceof DateClass) {
    const time = apply(dateTime, obj, []) as number;
    return tag(state, "date", build, {
      v: isNaN(time) ? "Invalid Date" : (apply(dateIso, obj, []) as string),
    });
  }
  const span = binarySpan(obj);
  if (span) return walkBinary(span, build, state);
  if (obj instanceof MapClass) {
    return walkEntries(obj, mapForEach, true, depth, wireDepth, build, state);
  }
  if (obj instanceof SetClass) {
    return walkEntries(obj, setForEach, false, depth, wireDepth, build, state);
  }
  if (obj instanceof ErrorClass) {
    // Only strings: a getter could answer with any value.
    const { name, message } = obj as { name: unknown; message: unknown };
    return tag(state, "error", build, {
      name: typeof name === "string" ? name : "Error",
      message: typeof message === "string" ? message : "",
    });
  }
  return walkPlain(obj, depth, wireDepth, build, state);
}

function walkArray(
  obj: unknown[],
  depth: number,
  wireDepth: number,
  build: boolean,
  state: Walk,
): Kept {
  const length = obj.length;
  const total = typeof length === "number" ? length : 0;
  const items: Kept[] | undefined = build ? [] : undefined;
  add(state, 2);
  if (build) keep(state, 2);
  let i = 0;
  for (; i < total && state.counting; i++) {
    if (i > 0) add(state, 1);
    const kept = items !== undefined && i < state.keepItems && keeping(state);
    let item: Kept = null;
    // A hole is written as JSON writes it: null.
    if (hasOwn(obj, i)) item = walk(obj[i], depth, wireDepth + 1, kept, state);
    else {
      add(state, 4);
      if (kept) keep(state, 4);
    }
    if (kept) put(state, items, i, item);
  }
  if (items === undefined) return null;
  if (items.length === total) return items;
  state.cut = true;
  return cutNode({ kind: "array", items, total });
}

function walkPlain(
  obj: object,
  depth: number,
  wireDepth: number,
  build: boolean,
  state: Walk,
): Kept {
  const names = keys(obj);
  // The whole walk keeps every key: the object is built as it goes. Else its keys and values
  // are kept in lists, which become a Cut when not all of them were kept.
  const plain: { [key: string]: Kept } | undefined = build && !state.exact ? {} : undefined;
  const keptNames: string[] | undefined = build && state.exact ? [] : undefined;
  const values: Kept[] = [];
  let count = 0;
  let tagged = false;
  add(state, 2);
  if (build) keep(state, 2);
  let i = 0;
  for (; i < names.length && state.counting; i++) {
    const key = names[i] as string;
    const item = (obj as Record<string, unknown>)[key];
    // JSON semantics for plain objects: properties holding undefined or functions are dropped.
    if (item === undefined || typeof item === "function") continue;
    if (key === TAG) tagged = true;
    const keyBytes = textBytes(state, key);
    add(state, (count > 0 ? 1 : 0) + keyBytes + 1);
    if (plain !== undefined) {
      keep(state, keyBytes + 2);
      put(state, plain, key, walk(item, depth, wireDepth + 1, true, state));
      count++;
      continue;
    }
    const kept = keptNames !== undefined && count < state.keepItems && keeping(state);
    if (kept) keep(state, keyBytes + 2);
    const node = walk(item, depth, wireDepth + 1, kept, state);
    if (kept) {
      put(state, keptNames, keptNames.length, key);
      put(state, values, values.length, node);
    }
    count++;
  }
  // Keys not walked (the count stopped) are taken as kept ones: their values are not known.
  const total = count + (names.length - i);
  if (tagged) add(state, 21);
  let out: Kept;
  if (plain !== undefined) out = plain;
  else if (keptNames === undefined) return null;
  else if (keptNames.length === total) {
    const whole: { [key: string]: Kept } = {};
    for (let k = 0; k < keptNames.length; k++) {
      put(state, whole, keptNames[k] as string, values[k] ?? null);
    }
    out = whole;
  } else {
    state.cut = true;
    out = cutNode({ kind: "object", names: keptNames, values, total });
  }
  // An object with a `$cm` key of its own is escaped, as codec.ts's encoder escapes it.
  return tagged ? { [TAG]: "object", v: out } : out;
}

/** A Map's entries (`[key, value]` pairs) or a Set's items, by the engine's own `forEach`. */
function walkEntries(
  obj: object,
  forEach: (this: object, callback: (item: unknown, key: unknown) => void) => void,
  pairs: boolean,
  depth: number,
  wireDepth: number,
  build: boolean,
  state: Walk,
): Kept {
  const name = pairs ? "map" : "set";
  // `{"$cm":"map","v":` … `}`
  add(state, 2 + 5 + 1 + name.length + 2 + 1 + 3 + 1 + 2);
  const items: Kept[] | undefined = build ? [] : undefined;
  let total = 0;
  try {
    apply(forEach, obj, [visit]);
  } catch (error) {
    if (error !== STOPPED) throw error;
    // The count stopped: the entries not walked are taken as there (their number is the
    // engine's own `size`).
    total = apply(pairs ? mapSize : setSize, obj, []) as number;
  }
  function visit(item: unknown, key: unknown): void {
    // Out of the engine's loop at once: a Map of a million entries held many times would
    // otherwise be iterated whole each time.
    if (!state.counting) throw STOPPED;
    const i = total++;
    if (i > 0) add(state, 1);
    const kept = items !== undefined && i < state.keepItems && keeping(state);
    let node: Kept;
    if (pairs) {
      add(state, 3);
      const k = walk(key, depth, wireDepth + 3, kept, state);
      const v = walk(item, depth, wireDepth + 3, kept, state);
      node = kept ? [k, v] : null;
    } else node = walk(item, depth, wireDepth + 2, kept, state);
    if (kept) put(state, items, i, node);
  }
  if (items === undefined) return null;
  keep(state, 16);
  if (items.length !== total) state.cut = true;
  const v = items.length === total ? items : cutNode({ kind: "array", items, total });
  return { [TAG]: name, v };
}

/** A binary value's tag, its bytes as base64: counted whole, only the kept prefix encoded. */
function walkBinary(span: BinarySpan, build: boolean, state: Walk): Kept {
  const chars = floor((span.length + 2) / 3) * 4;
  // `{"$cm":"bytes","v":"` … `"}`
  add(state, 2 + 5 + 1 + span.kind.length + 2 + 1 + 3 + 1 + chars + 2);
  if (!build) return null;
  keep(state, 16);
  if (chars <= state.keepChars) {
    keep(state, chars);
    return { [TAG]: span.kind, v: toBase64(spanBytes(span)) };
  }
  state.cut = true;
  keep(state, state.keepChars);
  const prefix = ceil(state.keepChars / 4) * 3;
  const head = toBase64(
    spanBytes({ ...span, length: prefix < span.length ? prefix : span.length }),
  );
  return {
    [TAG]: span.kind,
    v: cutNode({
      kind: "string",
      text: apply(textSlice, head, [0, state.keepChars]) as string,
      total: chars,
    }),
  };
}
