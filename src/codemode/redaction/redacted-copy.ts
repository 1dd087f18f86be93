/**
 * A copy of a data value (API or tool data) with secrets removed from every string, number,
 * key and byte array inside it: the `data` and `values` methods of a `Redactor`. Copy-on-write:
 * an object comes back as the same object when nothing inside it changed, so clean data (the
 * common case) costs no allocation. Cycles and very deep nesting are marked as the wire codec
 * marks them.
 */
import { REDACTED } from "./search/marker";

/** How the parts of a value are redacted: the redactor's own methods. */
export interface PartRedaction {
  text(value: string): string;
  bytes(value: Uint8Array): Uint8Array;
  error(error: unknown): Error;
}

/** Nesting deeper than this is cut with a marker. */
const MAX_DEPTH = 200;

/**
 * The copying function for one redactor.
 * @param redact - how strings, bytes and errors are redacted
 * @param keys - whether object and map keys are redacted too (false for documents whose keys
 *   are structure)
 * @param numeric - whether a secret could be written as a number (then numbers are checked)
 */
export function redactedCopy(
  redact: PartRedaction,
  keys: boolean,
  numeric: boolean,
): <T>(value: T) => T {
  const { text } = redact;
  const deep = (value: unknown, path: Set<object>, depth: number): unknown => {
    switch (typeof value) {
      case "string":
        return text(value);
      case "number":
      case "bigint": {
        if (!numeric) return value;
        const shown = String(value);
        return text(shown) === shown ? value : REDACTED;
      }
      case "object":
        break;
      default:
        return value;
    }
    if (value === null || value instanceof Date) return value;
    // A cycle back to an object being copied: the wire codec would mark it the same way.
    if (path.has(value)) return "[Circular]";
    if (depth > MAX_DEPTH) return "[Too deep]";
    path.add(value);
    try {
      return copyOf(value, (v) => deep(v, path, depth + 1), redact, keys);
    } finally {
      path.delete(value);
    }
  };
  return <T>(value: T): T => deep(value, new Set(), 0) as T;
}

/** One level of the copy: the same object when nothing inside changed. */
function copyOf(
  value: object,
  deep: (v: unknown) => unknown,
  { text, bytes, error }: PartRedaction,
  keys: boolean,
): unknown {
  if (value instanceof Uint8Array) return bytes(value);
  if (value instanceof ArrayBuffer) {
    const clean = bytes(new Uint8Array(value));
    return clean.buffer === value ? value : clean.buffer;
  }
  if (ArrayBuffer.isView(value)) {
    const view = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    const clean = bytes(view);
    return clean === view ? value : clean;
  }
  if (value instanceof Error) {
    const clean = error(value);
    return clean.message === value.message && clean.name === value.name ? value : clean;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const clean = deep(item);
      if (clean !== item) (out ??= [...value])[i] = clean;
    });
    return out ?? value;
  }
  if (value instanceof Set) {
    const items = [...value];
    const clean = items.map(deep);
    return clean.some((item, i) => item !== items[i]) ? new Set(clean) : value;
  }
  if (value instanceof Map) {
    const entries = [...value];
    const clean = entries.map(([k, v]) => [keys ? deep(k) : k, deep(v)] as const);
    return clean.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1])
      ? new Map(clean)
      : value;
  }
  let changed = false;
  const entries = Object.keys(value).map((k) => {
    const item = (value as Record<string, unknown>)[k];
    const [ck, cv] = [keys ? text(k) : k, deep(item)];
    if (ck !== k || cv !== item) changed = true;
    return [ck, cv] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * Every text the copy of `value` searches (strings; keys, when `keys`; numbers as text, when
 * `numeric`), in the order met, possibly more than once: what a caller searches first, in
 * slices, so the copy itself only looks the answers up (Redactor.dataInSlices). It follows what
 * the copy follows (nesting to {@link MAX_DEPTH}, each object once); a text it did not give is
 * searched by the copy at once, so the copy is the same whatever it gives. Each step is one
 * member (an array of a million is not pushed at once).
 * @param value - the value to copy
 * @param keys - whether object and map keys are redacted too
 * @param numeric - whether numbers are checked
 * @returns whether the copy reads nothing but those texts: no bytes or errors (searched by
 *   their own methods), no nesting past {@link MAX_DEPTH} and no object met twice (marked, or
 *   copied twice). Then, with every text's answer the text itself, the copy is `value` itself
 *   (copy on write), and need not be made.
 */
export function* textsIn(
  value: unknown,
  keys: boolean,
  numeric: boolean,
): Generator<string, boolean, void> {
  const seen = new Set<object>();
  let plain = true;
  // A value to visit (`at` -1), or an array whose members from `at` on are still to visit.
  const stack: [item: unknown, depth: number, at: number][] = [[value, 0, -1]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const [item, depth, at] = top;
    if (at >= 0) {
      const members = item as unknown[];
      if (at >= members.length) stack.pop();
      else {
        top[2] = at + 1;
        stack.push([members[at], depth + 1, -1]);
      }
      continue;
    }
    stack.pop();
    if (typeof item === "string") yield item;
    else if (typeof item === "number" || typeof item === "bigint") {
      if (numeric) yield String(item);
    } else if (typeof item === "object" && item !== null) {
      if (depth > MAX_DEPTH || seen.has(item)) {
        plain = false;
        continue;
      }
      seen.add(item);
      if (Array.isArray(item)) stack.push([item, depth, 0]);
      else if (item instanceof Set) for (const member of item) stack.push([member, depth + 1, -1]);
      else if (item instanceof Map)
        for (const [key, member] of item) {
          if (keys) stack.push([key, depth + 1, -1]);
          stack.push([member, depth + 1, -1]);
        }
      else if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer || item instanceof Error)
        plain = false;
      else if (!(item instanceof Date))
        for (const key of Object.keys(item)) {
          if (keys) yield key;
          stack.push([(item as Record<string, unknown>)[key], depth + 1, -1]);
        }
    }
  }
  return plain;
}
