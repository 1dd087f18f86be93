// Declarations of nested objects with a typed index signature (src/declarations/schema-emitter.ts):
// the index signature's union held every declared property's type again, so each nesting level
// doubled the text. A skill's input schema of 953 characters nested 12 deep gave 471,099
// characters of declarations (2 s of the host's thread); 14 deep, 2 MB and 46 s; any caller of
// an open local server could save one, and every `skills.declarations()` paid it.
import { describe, expect, it } from "vitest";
import { toolDeclarations } from "../../../src/declarations/tool-declarations";

/** `{ a?: <depth - 1 levels>, [k: string]: number }`, `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++)
    schema = {
      type: "object",
      properties: { a: schema },
      additionalProperties: { type: "number" },
    };
  return schema;
}

describe("an index signature beside object-typed properties", () => {
  it("grows with the schema, not twice per level", () => {
    const schema = nested(12);
    const { text } = toolDeclarations([{ name: "probe", inputSchema: schema }]);
    expect(text.length).toBeLessThan(2 * JSON.stringify(schema).length);
  });

  it("admits the object-typed property as `unknown`; a one-line type stays in the union", () => {
    const { text } = toolDeclarations([{ name: "probe", inputSchema: nested(2) }]);
    expect(text).toContain("[k: string]: number | string | undefined;");
    expect(text).toContain("[k: string]: unknown;");
  });
});
