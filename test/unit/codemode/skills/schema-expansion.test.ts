// A skill's JSON Schema with its `$ref`s counted as copies (src/codemode/skills/schema-expansion.ts):
// a small schema that stands for millions of subschemas, or one that recurses, is refused before
// the host's validator walks it; ordinary local references pass.
import { describe, expect, it } from "vitest";
import { schemaExpansionProblem } from "../../../../src/codemode/skills/schema-expansion";

/** `levels` `$defs`, each an `allOf` of `fanOut` `$ref`s to the next: fanOut^levels subschemas. */
function refBomb(fanOut: number, levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    defs[`d${i}`] = {
      allOf: Array.from({ length: fanOut }, () => ({ $ref: `#/$defs/d${i + 1}` })),
    };
  defs[`d${levels}`] = { type: "object" };
  return { $defs: defs, $ref: "#/$defs/d0" };
}

describe("schemaExpansionProblem", () => {
  it("refuses a small schema whose references multiply", () => {
    const bomb = refBomb(4, 11);
    expect(JSON.stringify(bomb).length).toBeLessThan(1_300);
    expect(schemaExpansionProblem(bomb, 8_000)).toMatch(
      /^is more than 8000 subschemas once each `\$ref` is counted as a copy of what it points to; .*Refer less/,
    );
  });

  it("takes ordinary local references, booleans and escaped pointers", () => {
    const schema = {
      $id: "https://example.com/skill",
      $defs: { "a/b": { type: "string" }, on: true },
      type: "object",
      properties: {
        x: { $ref: "#/$defs/a~1b" },
        y: { $ref: "#/$defs/on" },
        z: { type: "array", items: { $ref: "#/properties/x" } },
        $ref: { enum: [{ $ref: "not a schema: data" }] },
      },
    };
    expect(schemaExpansionProblem(schema, 8_000)).toBeUndefined();
    expect(schemaExpansionProblem(refBomb(2, 5), 8_000)).toBeUndefined();
  });

  it.each([
    [
      { $defs: { t: { properties: { a: { $ref: "#/$defs/t" } } } }, $ref: "#/$defs/t" },
      /refers to itself/,
    ],
    [{ properties: { a: { $ref: "#" } } }, /refers to itself/],
    [{ $ref: "https://example.com/other" }, /not a "#\/…" pointer into the schema itself/],
    [{ $ref: "#/$defs/missing" }, /not a "#\/…" pointer/],
    [{ $dynamicRef: "#node" }, /uses `\$dynamicRef`/],
    [{ properties: { a: { $id: "inner", $ref: "#/$defs/x" } } }, /sets `\$id` inside/],
  ])("refuses %j", (schema, message) => {
    expect(schemaExpansionProblem(schema, 8_000)).toMatch(message);
  });
});
