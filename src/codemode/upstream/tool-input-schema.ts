/**
 * The copy of an upstream tool's input schema that the host validates arguments against. The
 * schema is another party's text and the arguments are a sandbox program's choice; the
 * validator (@cfworker/json-schema) applies every `pattern`, `patternProperties` key and
 * `propertyNames` pattern with V8's backtracking engine and the `u` flag (which V8's linear-time
 * fallback does not take), so a pattern such as `^(a+)+$` against 30 `a`s and a `!` would hold
 * the host's only thread for minutes. Patterns that can backtrack exponentially or polynomially
 * (src/openapi/pattern-safety.ts classifies them) are left out of this copy: validation on the
 * host is an early, friendly refusal; the upstream still checks its own input. `uniqueItems` is
 * left out too: the validator compares every pair of items, and a 4 MB argument holds hundreds
 * of thousands of them. So is `format: "url"`: the validator's expression for it backtracks
 * exponentially (`http://` + 50 `a`s + `@` and a control character: hours). The other formats'
 * expressions took milliseconds on 16,000-character crafted inputs when measured (2026-12-04).
 *
 * Does not do: bound the cost of patterns classified linear.
 */
import { compileSpecPattern, patternRisk } from "../../openapi/pattern-safety";

/** Keywords whose value is data (a literal), never a schema: copied as they are. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** `format` values whose check in the validator can take exponential time. */
const UNSAFE_FORMATS = new Set(["url"]);

/** Deeper than this, a subschema is not checked at all (the upstream still is). */
const MAX_DEPTH = 200;

/**
 * Whether the host may apply a pattern to a value a program chose.
 * @param source - a `pattern` or `patternProperties` key
 */
export function isSafePattern(source: string): boolean {
  // Unreadable as a `u` pattern: the validator would throw on every call of the tool.
  if (compileSpecPattern(source) === null) return false;
  const risk = patternRisk(source);
  return risk !== "exponential" && risk.unbounded < 2;
}

/**
 * The schema without the patterns the host must not apply (see the module comment). The same
 * object when nothing had to go.
 * @param schema - an upstream tool's `inputSchema`
 */
export function validationSchema(schema: unknown): unknown {
  return strip(schema, 0);
}

function strip(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => strip(item, depth + 1));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  // A subschema this deep accepts anything here: not walked, so not applied.
  if (depth > MAX_DEPTH) return true;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let changed = false;
  const patterns = record["patternProperties"];
  // One pattern the host cannot apply: keys it would claim must not fall to
  // `additionalProperties` instead, so the object's other keys go unchecked here.
  const openKeys =
    patterns !== null &&
    typeof patterns === "object" &&
    !Object.keys(patterns).every((source) => isSafePattern(source));
  for (const [key, item] of Object.entries(record)) {
    if (
      (key === "pattern" && typeof item === "string" && !isSafePattern(item)) ||
      (key === "uniqueItems" && typeof item === "boolean") ||
      (key === "format" && typeof item === "string" && UNSAFE_FORMATS.has(item))
    ) {
      changed = true;
      continue;
    }
    if (
      openKeys &&
      (key === "patternProperties" ||
        key === "additionalProperties" ||
        key === "unevaluatedProperties")
    ) {
      changed = true;
      continue;
    }
    const copy = DATA_KEYWORDS.has(key) ? item : strip(item, depth + 1);
    if (copy !== item) changed = true;
    out[key] = copy;
  }
  return changed ? out : value;
}
