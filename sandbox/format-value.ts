/**
 * Readable one-line rendering of any value for captured console output: objects as JSON-like
 * text, errors with name and message, cycles as `[Circular]`, Maps/Sets/Dates/bytes by type,
 * never `[object Object]`. Bounded in depth, items and length so logging a huge value is cheap.
 */

const MAX_DEPTH = 4;
const MAX_ITEMS = 50;
const MAX_STRING = 2_000;

/**
 * Formats console arguments the way `console.log` joins them: strings raw, the rest rendered.
 * @param args - the arguments passed to a console method
 */
export function formatLogArgs(args: readonly unknown[]): string {
  return args.map((arg) => (typeof arg === "string" ? arg : formatValue(arg))).join(" ");
}

/**
 * Renders one value.
 * @param value - any value
 */
export function formatValue(value: unknown): string {
  return render(value, new Set<object>(), 0);
}

function render(value: unknown, seen: Set<object>, depth: number): string {
  switch (typeof value) {
    case "string":
      return depth === 0 ? value : JSON.stringify(clip(value));
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "boolean":
    case "undefined":
      return String(value);
    case "symbol":
      return value.toString();
    case "function":
      return `[Function ${value.name || "anonymous"}]`;
  }
  if (value === null) return "null";
  const obj = value as object;
  if (obj instanceof Error) {
    const head = `${obj.name}: ${obj.message}`;
    const cause = (obj as { cause?: unknown }).cause;
    return cause === undefined ? head : `${head} [cause: ${render(cause, seen, depth + 1)}]`;
  }
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  if (obj instanceof RegExp) return obj.toString();
  if (seen.has(obj)) return "[Circular]";
  if (depth >= MAX_DEPTH) return Array.isArray(obj) ? "[Array]" : "[Object]";
  seen.add(obj);
  try {
    return renderContainer(obj, seen, depth + 1);
  } finally {
    seen.delete(obj);
  }
}

function renderContainer(obj: object, seen: Set<object>, depth: number): string {
  if (Array.isArray(obj))
    return list("[", obj, "]", (item) => render(item, seen, depth), obj.length, true);
  if (obj instanceof Map) {
    return list(
      `Map(${obj.size}) {`,
      [...obj],
      "}",
      ([k, v]) => `${render(k, seen, depth)} => ${render(v, seen, depth)}`,
    );
  }
  if (obj instanceof Set)
    return list(`Set(${obj.size}) {`, [...obj], "}", (v) => render(v, seen, depth));
  if (ArrayBuffer.isView(obj)) {
    const bytes = new Uint8Array(obj.buffer, obj.byteOffset, obj.byteLength);
    return list(
      `${obj.constructor.name}(${bytes.length}) [`,
      [...bytes.subarray(0, MAX_ITEMS + 1)],
      "]",
      String,
      bytes.length,
    );
  }
  if (obj instanceof ArrayBuffer) return `ArrayBuffer(${obj.byteLength})`;
  if (obj instanceof Promise) return "Promise {}";
  const keys = Object.keys(obj);
  const name = obj.constructor && obj.constructor !== Object ? `${obj.constructor.name} ` : "";
  return list(
    `${name}{`,
    keys,
    "}",
    (key) =>
      `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${render((obj as Record<string, unknown>)[key], seen, depth)}`,
  );
}

function list<T>(
  open: string,
  items: readonly T[],
  close: string,
  each: (item: T) => string,
  total = items.length,
  tight = false,
): string {
  const shown = items.slice(0, MAX_ITEMS).map(each);
  if (total > MAX_ITEMS) shown.push(`… ${total - MAX_ITEMS} more`);
  if (shown.length === 0) return `${open}${close}`;
  // Arrays print tight like JSON (`[1, 2]`); braces and typed arrays get inner spaces.
  return tight ? `${open}${shown.join(", ")}${close}` : `${open} ${shown.join(", ")} ${close}`;
}

function clip(text: string): string {
  return text.length > MAX_STRING
    ? `${text.slice(0, MAX_STRING)}…[+${text.length - MAX_STRING} chars]`
    : text;
}
