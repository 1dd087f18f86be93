// scalarCheck: path, query and header values checked against their schemas.
import { describe, expect, it } from "vitest";
import { scalarCheck } from "../../../src/openapi/scalar-check";
import { validateSchema } from "../../../src/openapi/schema-validator";
import type { JsonObject } from "../../../src/openapi/types";

const SCHEMAS: JsonObject[] = [
  { type: "string", maxLength: 32, description: "Identifier" },
  { type: "string", minLength: 2, pattern: "^[a-z]+$" },
  { type: "string", enum: ["asc", "desc"], example: "desc" },
  { type: "integer", minimum: 1, maximum: 50, default: 20 },
  { type: "number", minimum: 0.5 },
  { type: "boolean" },
  { type: "string", format: "uuid", readOnly: true, "x-auditable": true },
  { type: "string", nullable: true, maxLength: 3 },
];
const VALUES: unknown[] = [
  "",
  "a",
  "abc",
  "ABC",
  "asc",
  "desc",
  "x".repeat(32),
  "x".repeat(33),
  "😀😀",
  "😀😀😀😀",
  0,
  1,
  1.5,
  50,
  51,
  -3,
  true,
  false,
  null,
  ["a"],
  { a: 1 },
];

describe("scalarCheck", () => {
  it("only ever says yes when the general validator finds no problem", () => {
    let yes = 0;
    for (const schema of SCHEMAS) {
      const fast = scalarCheck(schema);
      expect(fast, JSON.stringify(schema)).toBeTypeOf("function");
      for (const value of VALUES) {
        const problems = validateSchema(value, schema, { resolve: () => undefined });
        if (fast!(value)) {
          yes++;
          expect(problems, `${JSON.stringify(schema)} ${JSON.stringify(value)}`).toEqual([]);
        }
      }
    }
    // And it does say yes often enough to matter.
    expect(yes).toBeGreaterThan(15);
  });

  it("leaves every other schema to the general validator", () => {
    for (const schema of [
      { $ref: "#/components/schemas/x" },
      { type: "array", items: { type: "string" } },
      { type: ["string", "null"] },
      { type: "integer", exclusiveMinimum: 0 },
      { type: "string", pattern: "(?<!a)b[" },
      { type: "string", enum: [{ a: 1 }] },
      { oneOf: [{ type: "string" }] },
      { type: "number", multipleOf: 5 },
    ] as JsonObject[]) {
      expect(scalarCheck(schema), JSON.stringify(schema)).toBeUndefined();
    }
  });
});
