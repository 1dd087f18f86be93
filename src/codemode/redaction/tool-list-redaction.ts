/**
 * The upstream's tool list as the sandbox (search, describe) and the client (the `code` tool's
 * description) see it: with the secrets removed from names too. An upstream echoing its
 * credential into a tool name or a schema property name would otherwise hand it to the program
 * through the declarations. Calls are routed by position (upstream-set.ts), not by the name
 * shown, so a redacted name still reaches its tool.
 *
 * What stays: JSON Schema keywords used as keys (`properties`, `type`, …) are structure; every
 * other key (property, definition and pattern names, keys inside `const`/`enum`/`default`
 * values) is payload and redacted like a string. `$ref` strings and `required` entries are
 * redacted as strings, so they keep naming the keys they named.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { Redactor } from "./redaction";

/** Keys that are JSON Schema (2020-12, draft-07, OpenAPI) keywords: never redacted. */
const KEYWORDS = new Set(
  (
    "$schema $id $ref $anchor $dynamicRef $dynamicAnchor $defs $comment $vocabulary definitions " +
    "type enum const title description default examples example deprecated readOnly writeOnly " +
    "properties patternProperties additionalProperties unevaluatedProperties propertyNames " +
    "required dependentRequired dependentSchemas dependencies minProperties maxProperties items " +
    "prefixItems additionalItems unevaluatedItems contains minContains maxContains minItems " +
    "maxItems uniqueItems allOf anyOf oneOf not if then else format pattern minLength maxLength " +
    "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf nullable discriminator " +
    "propertyName mapping contentEncoding contentMediaType contentSchema"
  ).split(" "),
);

/** Deeper than this, a subschema is replaced (a declaration that deep says nothing useful). */
const MAX_DEPTH = 200;

/**
 * A copy of `tool` with the secrets removed from its name, texts and schema names.
 * @param tool - an upstream tool (merged name)
 * @param redactor - the caller's redactor (active)
 */
export function redactTool(tool: Tool, redactor: Redactor): Tool {
  const clean = redactor.values(tool);
  return {
    ...clean,
    name: redactor.text(tool.name),
    inputSchema: redactNames(clean.inputSchema, redactor, 0) as Tool["inputSchema"],
    ...(clean.outputSchema === undefined
      ? {}
      : { outputSchema: redactNames(clean.outputSchema, redactor, 0) as Tool["outputSchema"] }),
  };
}

function redactNames(value: unknown, redactor: Redactor, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH) return {};
  if (Array.isArray(value)) return value.map((item) => redactNames(item, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = KEYWORDS.has(key) ? key : redactor.text(key);
    // A "__proto__" key stays an own property (an assignment would set the prototype).
    Object.defineProperty(out, name, {
      value: redactNames(item, redactor, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
