/**
 * Keywords beside a `$ref`. Since JSON Schema 2019-09 they apply together with the referenced
 * schema (MCP tool schemas are 2020-12), so the declaration intersects both. OpenAPI 3.0 says
 * siblings are ignored, but specs that write them mean them; annotations are left out either way.
 */

/** Keywords beside `$ref` that say nothing about the value's type (annotations, containers). */
const REF_ANNOTATIONS = new Set([
  "$ref",
  "$id",
  "$schema",
  "$anchor",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "example",
  "deprecated",
  "readOnly",
  "writeOnly",
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
]);

/**
 * The keywords beside a `$ref` that constrain the value, or `undefined` when there are none.
 * @param schema - a schema with a `$ref`
 */
export function refSiblings(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  // The referenced schema evaluates items and keys too, so `unevaluated*` beside the `$ref`
  // cannot be read as `additional*`: left out (the declaration is looser, never stricter).
  const keys = Object.keys(schema).filter(
    (k) => !REF_ANNOTATIONS.has(k) && !k.startsWith("x-") && !k.startsWith("unevaluated"),
  );
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((k) => [k, schema[k]]));
}
