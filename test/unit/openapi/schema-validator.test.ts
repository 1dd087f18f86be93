/**
 * validateSchema on values a sandbox program chose: its work is bounded whatever the schema.
 * Before: a recursive schema whose `anyOf` branches each recurse (filter trees, query DSLs) was
 * walked once per branch at every level, 3^depth checks: 14 levels of `{ c: … }` took 7 s of the
 * host's thread, and the depth limit let about 20 through.
 */
import { describe, expect, it } from "vitest";
import { MAX_SCHEMA_STEPS, validateSchema } from "../../../src/openapi/schema-validator";

const defs: Record<string, unknown> = {
  Node: {
    anyOf: ["x", "y", "z"].map((key) => ({
      type: "object",
      properties: { c: { $ref: "#/Node" } },
      required: [key],
    })),
  },
};
const resolve = (ref: string) => defs[ref.slice(2)];

function nested(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let body = leaf;
  for (let i = 0; i < depth; i++) body = { c: body, x: 1 };
  return body;
}

describe("validateSchema: bounded work", () => {
  it("a value nested under branching recursive alternatives is checked within the step budget", () => {
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) body = { c: body };
    // The work is counted, not timed: every step into `c` follows its `$ref` once. Without the
    // budget that is 3^30 lookups; past twice the budget the count ends the walk (no hang).
    let lookups = 0;
    const counted = (ref: string) => {
      if (++lookups > 2 * MAX_SCHEMA_STEPS) throw new Error("unbounded: past twice the budget");
      return resolve(ref);
    };
    validateSchema(body, { $ref: "#/Node" }, { resolve: counted });
    expect(lookups).toBeGreaterThan(0);
    expect(lookups).toBeLessThanOrEqual(MAX_SCHEMA_STEPS);
  });

  it("still checks such values when they are small", () => {
    expect(validateSchema(nested(5, { x: 1 }), { $ref: "#/Node" }, { resolve })).toEqual([]);
    expect(validateSchema(nested(5, {}), { $ref: "#/Node" }, { resolve })).not.toEqual([]);
  });

  it("the budget allows ordinary large bodies", () => {
    const schema = {
      type: "array",
      items: { type: "object", properties: { id: { type: "string" }, n: { type: "integer" } } },
    };
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: String(i), n: i }));
    rows.push({ id: "last", n: "bad" as unknown as number });
    expect(MAX_SCHEMA_STEPS).toBeGreaterThan(3 * rows.length);
    expect(validateSchema(rows, schema, { resolve })).toHaveLength(1);
  });
});
