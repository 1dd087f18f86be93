/**
 * Small operations on TypeScript type text that the schema emitter composes: literals, unions,
 * `| null`, and parentheses where operator precedence needs them. One scanner finds top-level
 * operators (outside brackets and strings) for both splitting and parenthesizing.
 */

import { propertyKey } from "./type-name";

/** Type names that never need parentheses. */
export const SIMPLE = new Set(["string", "number", "boolean", "null", "unknown", "never"]);

/**
 * Splits a type at a top-level operator (outside brackets and strings).
 * @param type - type text
 * @param op - the operator
 */
export function splitTopLevel(type: string, op: "|" | "&"): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"' || c === "`") quote = c;
    else if ("{[(<".includes(c)) depth++;
    else if ("}])>".includes(c)) depth--;
    else if (depth === 0 && c === op) {
      parts.push(type.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(type.slice(start).trim());
  return parts;
}

/**
 * Parenthesizes a type when it has a top-level operator binding looser than the context:
 * inside `|` an intersection is fine; inside `&` a union needs parens; before `[]` both do.
 * @param type - type text
 * @param context - where the type is used
 */
export function paren(type: string, context: "|" | "&" | "[]"): string {
  if (SIMPLE.has(type)) return type;
  const loose =
    (context !== "|" && splitTopLevel(type, "|").length > 1) ||
    (context === "[]" && splitTopLevel(type, "&").length > 1);
  return loose ? `(${type})` : type;
}

/**
 * Whether a union consists of keywords and literals only (no object types or names).
 * @param type - type text
 */
export function isLiteralUnion(type: string): boolean {
  return type
    .split(" | ")
    .every((t) => SIMPLE.has(t) || /^("([^"\\]|\\.)*"|-?\d[\d.e+-]*|true|false)$/.test(t));
}

/**
 * A JSON value as a literal type: `"a"`, `1`, `true`, `null`, arrays as tuples (`[1, "x"]`) and
 * objects as one-line type literals (`{ kind: "a"; "max-size": 2 }`), so an `enum` of objects
 * says exactly which objects are allowed; `unknown` for what JSON cannot hold.
 * @param value - an `enum`/`const` value
 */
export function literal(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "number";
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${literal(v)}`).join("; ")} }`;
  }
  return "unknown";
}

/**
 * The union of distinct types (`never` when empty, `unknown` absorbs the rest).
 * @param types - member type texts
 */
export function union(types: string[]): string {
  const distinct = [...new Set(types)];
  if (distinct.includes("unknown")) return "unknown";
  return distinct.length === 0
    ? "never"
    : distinct.map((t) => (distinct.length > 1 ? paren(t, "|") : t)).join(" | ");
}

/**
 * Adds `| null` for nullable schemas (OpenAPI 3.0 `nullable`), once.
 * @param type - type text
 * @param nullable - whether null is allowed
 */
export function withNull(type: string, nullable: boolean): string {
  if (!nullable || type === "unknown" || / \| null$|^null$/.test(type)) return type;
  return `${paren(type, "|")} | null`;
}
