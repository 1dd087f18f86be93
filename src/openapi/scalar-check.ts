/**
 * A fast yes for the common parameter schema: a plain string, number or boolean with simple
 * bounds (`{ type: "string", maxLength: 32 }`). `codemode.request()` validates every parameter
 * of every call; the general validator walks the schema each time, while a compiled predicate
 * answers in a few comparisons. The predicate only ever says "valid": on `false` (or for any
 * schema it does not cover) the caller runs the general validator, which also words the problem,
 * so messages and edge cases stay exactly those of schema-validator.ts.
 */
import { compileSpecPattern } from "./pattern-safety";
import type { JsonObject } from "./types";

/** Keywords that do not constrain a scalar value (annotations and unenforced `format`). */
const ANNOTATIONS = new Set([
  "description",
  "example",
  "examples",
  "default",
  "title",
  "readOnly",
  "writeOnly",
  "deprecated",
  "format",
  "nullable",
]);
const HANDLED = new Set([
  "type",
  "minLength",
  "maxLength",
  "pattern",
  "enum",
  "minimum",
  "maximum",
]);

/**
 * Compiles a resolved scalar schema into a predicate that is true only for valid values, or
 * returns `undefined` when the schema is not a simple scalar one.
 * @param schema - a schema with its `$ref` already followed
 */
export function scalarCheck(
  schema: JsonObject | undefined,
): ((value: unknown) => boolean) | undefined {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return undefined;
  for (const key of Object.keys(schema)) {
    if (!HANDLED.has(key) && !ANNOTATIONS.has(key) && !key.startsWith("x-")) return undefined;
  }
  const { type, minLength, maxLength, pattern, enum: choices, minimum, maximum } = schema;
  if (choices !== undefined && !Array.isArray(choices)) return undefined;
  const allowed = choices?.every((c) => c === null || typeof c !== "object")
    ? new Set(choices)
    : choices === undefined
      ? undefined
      : null;
  if (allowed === null) return undefined;
  const inEnum = (value: unknown) => allowed === undefined || allowed.has(value);
  if (type === "string") {
    const re = typeof pattern === "string" ? compileSpecPattern(pattern) : null;
    if (typeof pattern === "string" && !re) return undefined;
    const min = typeof minLength === "number" ? minLength : 0;
    const max = typeof maxLength === "number" ? maxLength : Infinity;
    return (value) =>
      typeof value === "string" &&
      // UTF-16 length equals the code-point length when there are no surrogate pairs.
      !/[\uD800-\uDFFF]/.test(value) &&
      value.length >= min &&
      value.length <= max &&
      (!re || re.test(value)) &&
      inEnum(value);
  }
  if (pattern !== undefined || minLength !== undefined || maxLength !== undefined) return undefined;
  if (type === "integer" || type === "number") {
    const min = typeof minimum === "number" ? minimum : -Infinity;
    const max = typeof maximum === "number" ? maximum : Infinity;
    return (value) =>
      typeof value === "number" &&
      Number.isFinite(value) &&
      (type === "number" || Number.isInteger(value)) &&
      value >= min &&
      value <= max &&
      inEnum(value);
  }
  if (type === "boolean" && minimum === undefined && maximum === undefined)
    return (value) => typeof value === "boolean" && inEnum(value);
  return undefined;
}
