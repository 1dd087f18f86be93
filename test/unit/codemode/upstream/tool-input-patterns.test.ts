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
import { format } from "@cfworker/json-schema";
import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../../../src/codemode/upstream/tool-catalog";
import { countRegexRuns } from "../../../helpers/regex-runs";

/**
 * Validates `input`, counting the regular-expression runs (not timed: our rule). A run of one of
 * the `dangerous` expressions is refused before it starts (the values below would hold the test
 * for minutes) and fails the case.
 */
function check(schema: Record<string, unknown>, input: unknown, dangerous: string[] = []) {
  const catalog = new ToolCatalog([{ name: "t", inputSchema: schema as Tool["inputSchema"] }]);
  const { result: problems, runs } = countRegexRuns(
    () => catalog.validate(catalog.entries[0]!, input),
    (run) => dangerous.includes(run.source),
  );
  return { problems, dangerousRuns: runs.filter((run) => dangerous.includes(run.source)) };
}

/** The validator's own expression for `format: "url"`, read off the one run it makes. */
const URL_FORMAT = countRegexRuns(() => format["url"]!("http://example.com")).runs[0]!.source;

/**
 * An array of `length` distinct numbers that counts how often its items are read: comparing
 * every pair (uniqueItems) reads them length² times. Past `limit` reads it throws, so a
 * regression fails at once instead of running 900 million comparisons.
 */
function countedArray(length: number, limit: number) {
  const reads = { count: 0 };
  const items = new Proxy(
    Array.from({ length }, (_, i) => i),
    {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key) && ++reads.count > limit)
          throw new Error(`more than ${limit} reads of the array's items`);
        return Reflect.get(target, key, receiver);
      },
    },
  );
  return { items, reads };
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
    const { problems, dangerousRuns } = check(
      {
        type: "object",
        properties,
        $defs: { names: { type: "object", propertyNames: { pattern: "^(a+)+$" } } },
      },
      input,
      ["^(a+)+$", "^\\d+\\d+\\d+$"],
    );
    expect(problems).toEqual([]);
    expect(dangerousRuns).toEqual([]);
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
    // Counted, not timed: applied, it reads the items 30,000² times; left out, a few times each.
    const { items, reads } = countedArray(30_000, 300_000);
    const { problems } = check(
      { type: "object", properties: { tags: { type: "array", uniqueItems: true } } },
      { tags: items },
    );
    expect(problems).toEqual([]);
    expect(reads.count).toBeLessThanOrEqual(30_000);
  });
});

describe("upstream formats with a catastrophic expression", () => {
  it('format "url" is not applied to a crafted string', () => {
    const { problems, dangerousRuns } = check(
      { type: "object", properties: { link: { type: "string", format: "url" } } },
      { link: `http://${"a".repeat(25)}@\u0000` },
      [URL_FORMAT],
    );
    expect(problems).toEqual([]);
    expect(dangerousRuns).toEqual([]);
  });

  it("other formats are still checked", () => {
    const schema = { type: "object", properties: { day: { type: "string", format: "date" } } };
    expect(check(schema, { day: "not a date" }).problems).toEqual([
      expect.stringContaining("input/day"),
    ]);
  });
});
