/**
 * `redactor.data(value)` for data a program sends (an upstream tool's arguments), with the
 * searches charged to the run and given the thread between slices (./sent-check.ts, issue #40):
 * the arguments are up to `maxCallBytes` of the program's choosing, and `redactor.data` searches
 * every string, key and byte array in one synchronous walk.
 *
 * Two passes. The first walks the value and searches each distinct string, key, number and byte
 * array through the run's {@link SentCheck} (a large one in slices, small ones at once with a
 * pause after every {@link SLICE_POSITIONS} characters), remembering each answer; the second
 * builds the copy exactly as `redactor.data` does (../redaction/redacted-copy.ts: copy on write,
 * cycles and depth marked the same way), reading those answers. A part the first pass did not
 * meet is searched at once by the redactor itself, so the copy is always `redactor.data`'s
 * (test/unit/codemode/request/sent-data.test.ts compares them). The copy pauses every
 * {@link SLICE_POSITIONS} parts; a value the first pass found clean (every answer the part
 * itself, no object met twice or nested too deep) is the copy itself, and is not walked again.
 */
import type { Redactor } from "../redaction/redaction";
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../redaction/slices";
import type { SentCheck } from "./sent-check";

/**
 * Parts the second pass (the copy) has visited so far: a test counts them (a clean value is not
 * copied at all).
 */
export const sentWork = { copied: 0 };

/** Nesting the copy follows (redacted-copy.ts's bound: deeper objects become a marker). */
const MAX_DEPTH = 200;

/**
 * Work a small part costs besides its characters (a search's fixed cost): a million one-letter
 * strings are paused between like a long text.
 */
const PART_COST = 64;

/**
 * A copy of `value` with the secrets removed as `redactor.data` removes them, searched in slices
 * and charged to the run.
 * @param value - what the program sends (decoded host-call arguments)
 * @param redactor - the configured secrets
 * @param check - the run's search of what it sends
 * @param what - the call being checked, for a refusal
 * @param signal - the run's
 * @throws SandboxError `LimitError` past the run's budget (./sent-check.ts)
 */
export async function sentData<T>(
  value: T,
  redactor: Redactor,
  check: SentCheck,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  if (!redactor.active) return value;
  const texts = new Map<string, string>();
  const numbers = new Map<unknown, unknown>();
  const objects = new Map<object, unknown>();
  let work = 0;
  // Whether the copy would be `value` itself: every part's answer is the part, and the copy
  // marks nothing (see the end of the first pass).
  let plain = true;
  const spent = async (size: number) => {
    work += size + PART_COST;
    if (work >= SLICE_POSITIONS) {
      work = 0;
      await check.pause(signal);
    }
  };
  const text = async (part: string) => {
    if (texts.has(part)) return texts.get(part)!;
    const found = check.text(part, what, signal);
    const clean = typeof found === "string" ? found : await found;
    texts.set(part, clean);
    if (clean !== part) plain = false;
    await spent(part.length);
    return clean;
  };
  const bytes = async (part: Uint8Array) => {
    const found = check.bytes(part, what, signal);
    const clean = found instanceof Promise ? await found : found;
    if (clean !== part) plain = false;
    await spent(part.byteLength);
    return clean;
  };

  // First pass: every part searched, depth first, each object once (where it is first met
  // within the depth the copy follows).
  const seen = new Set<object>();
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    switch (typeof item) {
      case "string":
        await text(item);
        continue;
      case "number":
      case "bigint":
        if (!numbers.has(item)) {
          // The redactor's own answer: it knows whether numbers can hold a secret at all.
          const answer = redactor.data(item);
          numbers.set(item, answer);
          if (!Object.is(answer, item)) plain = false;
          await spent(0);
        }
        continue;
      case "object":
        break;
      default:
        continue;
    }
    if (item === null || item instanceof Date) continue;
    // Met again (maybe a cycle, which the copy marks) or too deep (cut with a marker): the copy
    // may differ from the value.
    if (seen.has(item) || depth > MAX_DEPTH) {
      plain = false;
      continue;
    }
    seen.add(item);
    if (item instanceof Uint8Array) objects.set(item, await bytes(item));
    else if (item instanceof ArrayBuffer) {
      const clean = await bytes(new Uint8Array(item));
      objects.set(item, clean.buffer === item ? item : clean.buffer);
    } else if (ArrayBuffer.isView(item)) {
      const view = new Uint8Array(item.buffer, item.byteOffset, item.byteLength);
      const clean = await bytes(view);
      objects.set(item, clean === view ? item : clean);
    } else if (item instanceof Error) {
      const [message, name] = [String(item.message), String(item.name)];
      const [cleanMessage, cleanName] = [await text(message), await text(name)];
      if (cleanMessage === item.message && cleanName === item.name) objects.set(item, item);
      else {
        plain = false;
        // As `redactor.error` makes it: a plain Error with the searched name and message.
        const safe = new Error(cleanMessage);
        safe.name = cleanName;
        objects.set(item, safe);
      }
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], depth + 1]);
    } else if (item instanceof Set) {
      for (const member of item) stack.push([member, depth + 1]);
    } else if (item instanceof Map) {
      for (const [key, member] of item) stack.push([key, depth + 1], [member, depth + 1]);
    } else
      for (const key of Object.keys(item)) {
        await text(key);
        stack.push([(item as Record<string, unknown>)[key], depth + 1]);
      }
  }

  // Nothing to cut and nothing to mark: the copy would be `value` itself (copy on write), and
  // its walk one more unsliced pass over every part (a value of a million parts, issue #40).
  // Why it is `value`: the copy returns a part as it is when its answer is the part (texts,
  // numbers, bytes and errors each compared above), an object as it is when every member is, and
  // marks only an object met again on its path or nested past MAX_DEPTH, both of which the first
  // pass met (an object met twice, or too deep) and counted as not plain.
  if (plain) return value;
  // Second pass: the copy, as redacted-copy.ts makes it, from the answers of the first; a
  // generator that pauses every SLICE_POSITIONS parts (a value of a million parts with one
  // secret in it was copied in one walk).
  const textOf = (part: string) => texts.get(part) ?? redactor.text(part);
  let copied = 0;
  /** A part that is no object, as the copy makes it; {@link NOT_FLAT} for an object. */
  const flat = (item: unknown): unknown => {
    sentWork.copied++;
    copied++;
    switch (typeof item) {
      case "string":
        return textOf(item);
      case "number":
      case "bigint":
        return numbers.has(item) ? numbers.get(item) : redactor.data(item);
      case "object":
        return item === null ? item : NOT_FLAT;
      default:
        return item;
    }
  };
  /** A part as the copy makes it: at once when it is no object, else by {@link deep}. */
  function* inner(item: unknown, path: Set<object>, depth: number): Sliced<unknown> {
    const clean = flat(item);
    if (copied >= SLICE_POSITIONS) {
      copied = 0;
      yield PAUSE;
    }
    return clean === NOT_FLAT ? yield* deep(item as object, path, depth) : clean;
  }
  function* deep(item: object, path: Set<object>, depth: number): Sliced<unknown> {
    if (item instanceof Date) return item;
    if (path.has(item)) return "[Circular]";
    if (depth > MAX_DEPTH) return "[Too deep]";
    path.add(item);
    try {
      return yield* copyOf(item, path, depth + 1);
    } finally {
      path.delete(item);
    }
  }
  function* copyOf(item: object, path: Set<object>, depth: number): Sliced<unknown> {
    if (objects.has(item)) return objects.get(item);
    if (
      item instanceof Uint8Array ||
      item instanceof ArrayBuffer ||
      ArrayBuffer.isView(item) ||
      item instanceof Error
    )
      return redactor.data(item);
    if (Array.isArray(item)) {
      let out: unknown[] | undefined;
      // As `forEach`: holes are skipped (and stay holes in a copy made with them).
      for (let i = 0; i < item.length; i++) {
        if (!(i in item)) continue;
        const member: unknown = item[i];
        const clean = yield* inner(member, path, depth);
        if (clean !== member) (out ??= [...item])[i] = clean;
      }
      return out ?? item;
    }
    if (item instanceof Set) {
      const members = [...item];
      const clean: unknown[] = [];
      for (const member of members) clean.push(yield* inner(member, path, depth));
      return clean.some((member, i) => member !== members[i]) ? new Set(clean) : item;
    }
    if (item instanceof Map) {
      const entries = [...item];
      const clean: (readonly [unknown, unknown])[] = [];
      for (const [k, v] of entries) {
        const ck = yield* inner(k, path, depth);
        clean.push([ck, yield* inner(v, path, depth)] as const);
      }
      return clean.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1])
        ? new Map(clean)
        : item;
    }
    let changed = false;
    const entries: (readonly [string, unknown])[] = [];
    for (const k of Object.keys(item)) {
      const member = (item as Record<string, unknown>)[k];
      const [ck, cv] = [textOf(k), yield* inner(member, path, depth)];
      if (ck !== k || cv !== member) changed = true;
      entries.push([ck, cv] as const);
    }
    return changed ? Object.fromEntries(entries) : item;
  }
  const copy = inner(value, new Set(), 0);
  for (let step = copy.next(); ; step = copy.next()) {
    if (step.done) return step.value as T;
    await check.pause(signal);
  }
}

/** What {@link sentData}'s copy answers for a part that is an object (copied by its walk). */
const NOT_FLAT = Symbol("an object");
