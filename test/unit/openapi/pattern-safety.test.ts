/**
 * Spec patterns applied on the host to values a sandbox program chose (pattern-safety.ts): a
 * pattern that can backtrack exponentially is never applied, a polynomial one only to values
 * short enough, a linear one always. Issue #13: a catastrophic spec `pattern` let a model stall
 * the host's only thread during request validation.
 */
import { describe, expect, it } from "vitest";
import { compileSpecPattern, patternRisk, STEP_BUDGET } from "../../../src/openapi/pattern-safety";
import { validateSchema } from "../../../src/openapi/schema-validator";

describe("patternRisk", () => {
  it.each([
    "^(a+)+$",
    "(\\w+\\s?)*$",
    "^(a|ab)*c$",
    "(x+x+)+y",
    "^([a-z]+\\d?){2,}$",
    "(a*)*b",
    "^(.)\\1$",
    "(?<x>a)\\k<x>",
  ])("%s is exponential", (source) => expect(patternRisk(source)).toBe("exponential"));

  it.each([
    ["^[a-z0-9-]{1,63}$", 0],
    ["^\\d+$", 1],
    ["^[0-9a-f]{32}$", 0],
    ["^(\\+\\d{1,3})?\\d{4,14}$", 0],
    ["^\\d+\\d+$", 2],
    ["^[(a+)+]$", 0],
    ["^\\(a+\\)+$", 2],
    ["^.*foo.*$", 2],
  ] as const)("%s has %i unbounded quantifiers", (source, unbounded) =>
    expect(patternRisk(source)).toEqual({ unbounded }),
  );
});

describe("compileSpecPattern", () => {
  it("never applies an exponential pattern, and says why", () => {
    const re = compileSpecPattern("^(a+)+$")!;
    expect(re.skipped).toContain("exponential");
    // A value that would take V8 minutes: answered at once (and not held against the request).
    expect(re.test(`${"a".repeat(40)}!`)).toBe(true);
  });

  it("applies a polynomial pattern only to values up to the step budget's length", () => {
    const re = compileSpecPattern("^\\d+\\d+$")!;
    const limit = Math.floor(STEP_BUDGET ** (1 / 2));
    expect(re.test("12a")).toBe(false);
    expect(re.test(`${"1".repeat(limit - 1)}a`)).toBe(false);
    expect(re.test(`${"1".repeat(limit + 1)}a`)).toBe(true);
  });

  it("applies a linear pattern always; an unreadable one is skipped", () => {
    expect(compileSpecPattern("^[a-z]+$")!.test("abc1")).toBe(false);
    expect(compileSpecPattern("(?i)abc")).toBeNull();
  });

  it("request validation does not hold a skipped pattern against a value, nor stall on it", () => {
    const schema = { type: "string", pattern: "^(a+)+$" };
    // Before: refused (the pattern ran; with 30 a's it would have run for minutes).
    const resolve = () => undefined;
    expect(validateSchema(`${"a".repeat(10)}!`, schema, { resolve })).toEqual([]);
    expect(validateSchema("aaa", { type: "string", pattern: "^b+$" }, { resolve })).toHaveLength(1);
  });
});
