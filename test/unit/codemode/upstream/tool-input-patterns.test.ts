/**
 * Upstream tool schemas are checked on the host against arguments a sandbox program chose
 * (ToolCatalog.validate). An upstream `pattern` that backtracks exponentially (`^(a+)+$`) or
 * polynomially (`^\d+\d+$`) would let the program hold the host's thread for minutes with a
 * short crafted string: such patterns are left to the upstream's own check, as the OpenAPI
 * request validation does (src/openapi/pattern-safety.ts); linear ones are still applied.
 * `uniqueItems` compares every pair of items: a 4 MB array of distinct numbers would cost
 * hundreds of billions of comparisons, so it is left to the upstream too. So is the validator's
 * `format: "url"` expression, which backtracks exponentially on `http://aaa…a@` plus one more
 * character (50 characters: hours).
 */
import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../../../src/codemode/upstream/tool-catalog";

function check(schema: Record<string, unknown>, input: unknown) {
  const catalog = new ToolCatalog([{ name: "t", inputSchema: schema as Tool["inputSchema"] }]);
  const started = performance.now();
  const problems = catalog.validate(catalog.entries[0]!, input);
  return { problems, ms: performance.now() - started };
}

describe("upstream patterns applied on the host", () => {
  it.each([
    [
      "exponential pattern",
      { s: { type: "string", pattern: "^(a+)+$" } },
      { s: `${"a".repeat(25)}!` },
    ],
    [
      "polynomial pattern",
      { s: { type: "string", pattern: "^\\d+\\d+\\d+$" } },
      { s: `${"1".repeat(3_000)}x` },
    ],
    [
      "exponential patternProperties key",
      { m: { type: "object", patternProperties: { "^(a+)+$": { type: "number" } } } },
      { m: { [`${"a".repeat(28)}!`]: 1 } },
    ],
    [
      "exponential pattern under propertyNames in $defs",
      { m: { $ref: "#/$defs/names" } },
      { m: { [`${"a".repeat(25)}!`]: 1 } },
    ],
  ])("a catastrophic %s is not applied", (_case, properties, input) => {
    const { problems, ms } = check(
      {
        type: "object",
        properties,
        $defs: { names: { type: "object", propertyNames: { pattern: "^(a+)+$" } } },
      },
      input,
    );
    expect(problems).toEqual([]);
    expect(ms).toBeLessThan(250);
  });

  it("a linear pattern is still applied, and values under const/enum stay as written", () => {
    const schema = {
      type: "object",
      properties: {
        s: { type: "string", pattern: "^[a-z]+$" },
        k: { const: { pattern: "^(a+)+$" } },
      },
    };
    expect(check(schema, { s: "A" }).problems).toEqual([expect.stringContaining("input/s")]);
    expect(check(schema, { s: "a", k: { pattern: "^(a+)+$" } }).problems).toEqual([]);
    expect(check(schema, { s: "a", k: {} }).problems).not.toEqual([]);
  });
});

describe("upstream keywords with quadratic cost", () => {
  it("uniqueItems is not applied to a large array a program chose", () => {
    const { problems, ms } = check(
      { type: "object", properties: { tags: { type: "array", uniqueItems: true } } },
      { tags: Array.from({ length: 30_000 }, (_, i) => i) },
    );
    expect(problems).toEqual([]);
    expect(ms).toBeLessThan(250);
  });
});

describe("upstream formats with a catastrophic expression", () => {
  it('format "url" is not applied to a crafted string', () => {
    const { problems, ms } = check(
      { type: "object", properties: { link: { type: "string", format: "url" } } },
      { link: `http://${"a".repeat(25)}@\u0000` },
    );
    expect(problems).toEqual([]);
    expect(ms).toBeLessThan(250);
  });

  it("other formats are still checked", () => {
    const schema = { type: "object", properties: { day: { type: "string", format: "date" } } };
    expect(check(schema, { day: "not a date" }).problems).toEqual([
      expect.stringContaining("input/day"),
    ]);
  });
});
