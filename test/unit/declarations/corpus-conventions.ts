/**
 * The documented approximations of the declarations, as schema rewrites the corpus test judges
 * with the real validator. A declaration may differ from its schema only where one of these
 * explains the difference, instance by instance:
 * - {@link declaredShape}: the shape the declaration gives a schema. A schema without `type` whose
 *   keywords describe an object (or array) is declared as one (JSON Schema would also let
 *   strings, numbers… through), and an object without `additionalProperties`/`patternProperties`
 *   is closed to undeclared keys (TypeScript's excess-property check, which catches the model's
 *   typos). A valid instance the declaration refuses is explained when this rewrite refuses it.
 * - {@link expressible}: the schema without the keywords that have no TypeScript meaning (string
 *   lengths and patterns, numeric limits, counts, uniqueness, `not`, `if`/`then`/`else`,
 *   `contains`, `propertyNames`, dependencies, `unevaluated*`) and with `oneOf` read as `anyOf`
 *   (a union cannot say "exactly one"). An invalid instance the declaration accepts is explained
 *   when this rewrite accepts it.
 */

import { COUNT_LIMIT } from "../../../src/declarations/schema-emitter";

type Schema = Record<string, unknown>;

/** Keywords whose value is a map of subschemas. */
const MAP_KEYWORDS = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
];
/** Keywords whose value is one subschema. */
const ONE_KEYWORDS = [
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
/** Keywords whose value is a list of subschemas. */
const LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/** Keywords the declarations do not express (see the module comment). */
const INEXPRESSIBLE = [
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "minContains",
  "maxContains",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
];

/** Keywords that say "this is an object" to the emitter when `type` is absent. */
const OBJECT_KEYWORDS = ["properties", "additionalProperties", "patternProperties", "required"];

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Rewrites every subschema bottom-up with `fn` (boolean schemas pass through). */
function mapSchema(schema: unknown, fn: (s: Schema) => Schema): unknown {
  if (!isSchema(schema)) return schema;
  const out: Schema = { ...schema };
  for (const key of MAP_KEYWORDS)
    if (isSchema(out[key]))
      out[key] = Object.fromEntries(
        Object.entries(out[key] as Schema).map(([k, v]) => [k, mapSchema(v, fn)]),
      );
  for (const key of ONE_KEYWORDS) if (key in out) out[key] = mapSchema(out[key], fn);
  for (const key of LIST_KEYWORDS)
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => mapSchema(s, fn));
  if ("items" in out)
    out.items = Array.isArray(out.items)
      ? out.items.map((s) => mapSchema(s, fn))
      : mapSchema(out.items, fn);
  return fn(out);
}

/**
 * The schema as the declaration shapes it: implied `type`s made explicit, objects closed.
 * @param schema - a suite schema
 */
export function declaredShape(schema: unknown): unknown {
  return mapSchema(schema, (s) => {
    if (typeof s.$ref === "string") return s;
    const out = { ...s };
    const objectLike = OBJECT_KEYWORDS.some((k) => k in out);
    if (out.type === undefined && out.const === undefined && out.enum === undefined) {
      if (objectLike) out.type = "object";
      else if ("items" in out || "prefixItems" in out) out.type = "array";
    }
    const isObject =
      out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"));
    if (
      isObject &&
      isSchema(out.properties) &&
      !("additionalProperties" in out) &&
      !("patternProperties" in out)
    )
      out.additionalProperties = false;
    return out;
  });
}

/**
 * The schema without the keywords the declarations cannot express, `oneOf` read as `anyOf`.
 * @param schema - a suite schema
 */
export function expressible(schema: unknown): unknown {
  return mapSchema(schema, (s) => {
    const out = { ...s };
    for (const key of INEXPRESSIBLE) delete out[key];
    // `integer` is `number` to TypeScript.
    if (out.type === "integer") out.type = "number";
    if (Array.isArray(out.type)) out.type = out.type.map((t) => (t === "integer" ? "number" : t));
    // Item counts are tuple shapes: `minItems` as the optional members of a tuple, and both
    // counts up to COUNT_LIMIT on a plain array.
    const tuple = Array.isArray(out.prefixItems) || Array.isArray(out.items);
    const small = (n: unknown) => Number.isInteger(n) && (n as number) <= COUNT_LIMIT;
    // (only where the emitter sees an array: `type: array` or `items`).
    const array = tuple || out.type === "array" || out.items !== undefined;
    if (!array || (!tuple && !small(out.minItems))) delete out.minItems;
    if (!array || tuple || !small(out.maxItems)) delete out.maxItems;
    // Key patterns are not types: every undeclared key may hold what any pattern or
    // `additionalProperties` allows, and (index signatures cover declared keys too) what any
    // declared property allows.
    const patterns = isSchema(out.patternProperties) ? Object.values(out.patternProperties) : [];
    delete out.patternProperties;
    const extra = out.additionalProperties;
    const declared = isSchema(out.properties) ? Object.values(out.properties) : [];
    if (patterns.length > 0 && extra === undefined) out.additionalProperties = true;
    else if (patterns.length > 0 || (isSchema(extra) && declared.length > 0))
      out.additionalProperties = {
        anyOf: [
          ...(extra === undefined || extra === false ? [] : [extra]),
          ...patterns,
          ...declared,
        ],
      };
    if (Array.isArray(out.oneOf)) {
      out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: out.oneOf }];
      delete out.oneOf;
    }
    return out;
  });
}
