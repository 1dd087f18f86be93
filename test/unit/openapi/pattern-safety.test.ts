/**
 * Spec patterns applied on the host to values a sandbox program chose (pattern-safety.ts): a
 * pattern that can backtrack exponentially is never applied, a polynomial one only to values
 * short enough, a linear one always. Issue #13: a catastrophic spec `pattern` let a model stall
 * the host's only thread during request validation.
 */
import { describe, expect, it } from "vitest";
import {
  compileSpecPattern,
  maxCheckedLength,
  patternRisk,
  STEP_BUDGET,
} from "../../../src/openapi/pattern-safety";
import { validateSchema } from "../../../src/openapi/schema-validator";
import { countRegexRuns, type RegexRun } from "../../helpers/regex-runs";

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
    expect(patternRisk(source)).toMatchObject({ unbounded }),
  );
});

describe("patternRisk: what the polynomial cost depends on", () => {
  it.each([
    ["[a-z]+[0-9]", { unbounded: 1, bounded: [], anchored: false }],
    ["^a|b+", { unbounded: 1, bounded: [], anchored: false }],
    ["^(?:a|b)+$", "exponential"],
    ["^(?:ab)+$", { unbounded: 1, bounded: [], anchored: true }],
    ["^(?<year>\\d{4})-(?<day>\\d{1,3})?$", { unbounded: 0, bounded: [3, 2], anchored: true }],
    ["(?<=x)a{2,5}(?!y)", { unbounded: 0, bounded: [4], anchored: false }],
  ] as const)("%s", (source, cost) => expect(patternRisk(source)).toEqual(cost));

  it.each([
    [{ unbounded: 1, bounded: [], anchored: true }, Infinity],
    [{ unbounded: 0, bounded: [], anchored: false }, Infinity],
    [{ unbounded: 0, bounded: [63, 2], anchored: true }, Infinity],
    [{ unbounded: 2, bounded: [], anchored: true }, 3_162],
    [{ unbounded: 1, bounded: [], anchored: false }, 3_162],
    [{ unbounded: 0, bounded: [1_000, 1_000, 1_000], anchored: true }, 215],
  ])("%o is applied up to length %d", (cost, length) =>
    expect(maxCheckedLength(cost)).toBe(length),
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

  // The checks below took seconds of the host's thread each (measured: 5–11 s in Node 22), all
  // with values the step budget was meant to bound. Counted, not timed: each case states the
  // pattern's worst-case backtracking steps on a subject of n characters (worked out by hand, not
  // by the module's cost model), and every subject the engine is given must stay within
  // STEP_BUDGET. A run beyond it is refused before it starts (it would hold the test for seconds).
  // bench/hostile-inputs.mjs times the same values.
  const cube = (n: number) => n ** 3;
  const square = (n: number) => n ** 2;
  const bounded = (choices: number, k: number) => (n: number) => Math.min(choices, n) ** k;
  it.each([
    // Unanchored: JSON Schema patterns search, so V8 retries from every position (one factor n).
    ["[a-z]+[0-9]", "a".repeat(100_000), square],
    ["\\p{L}+\\d", "a".repeat(100_000), square],
    ["\\d+\\d+!", "1".repeat(3_162), cube],
    // Bounded quantifiers backtrack too: three of up to 1,000 are a billion splits.
    ["^\\d{1,1000}\\d{1,1000}\\d{1,1000}x$", `${"1".repeat(3_000)}!`, bounded(1_000, 3)],
    [
      "[a-z]{0,1000}[a-z]{0,1000}[0-9]",
      `${"a".repeat(2_000)}!`,
      (n: number) => n * bounded(1_001, 2)(n),
    ],
  ])("%s stays within the step budget on a hostile value", (source, value, steps) => {
    const re = compileSpecPattern(source)!;
    const overBudget = (run: RegexRun) => run.source === source && steps(run.length) > STEP_BUDGET;
    const { result, runs } = countRegexRuns(() => re.test(value), overBudget);
    expect(result).toBe(true);
    // The hostile value is longer than the budget allows: the pattern is not run on it at all.
    expect(runs.filter((run) => run.source === source)).toEqual([]);
    // Short values are still checked, within the budget.
    const short = value.slice(0, 10);
    const counted = countRegexRuns(() => re.test(short), overBudget);
    expect(counted.runs.filter((run) => run.source === source)).toHaveLength(1);
  });

  it("still applies such patterns to values short enough", () => {
    expect(compileSpecPattern("[a-z]+[0-9]")!.test("abc")).toBe(false);
    expect(compileSpecPattern("^\\d{1,1000}\\d{1,1000}\\d{1,1000}x$")!.test("123x")).toBe(true);
    expect(compileSpecPattern("^\\d{1,1000}\\d{1,1000}\\d{1,1000}x$")!.test("123y")).toBe(false);
    // Few bounded choices, anchored: applied at any length.
    const phone = compileSpecPattern("^(\\+\\d{1,3})?\\d{4,14}$")!;
    expect(phone.test(`+1${"2".repeat(100_000)}`)).toBe(false);
    expect(compileSpecPattern("^[a-z0-9-]{1,63}$")!.test(`${"a".repeat(100_000)}!`)).toBe(false);
  });

  it("request validation does not hold a skipped pattern against a value, nor stall on it", () => {
    const schema = { type: "string", pattern: "^(a+)+$" };
    // Before: refused (the pattern ran; with 30 a's it would have run for minutes).
    const resolve = () => undefined;
    expect(validateSchema(`${"a".repeat(10)}!`, schema, { resolve })).toEqual([]);
    expect(validateSchema("aaa", { type: "string", pattern: "^b+$" }, { resolve })).toHaveLength(1);
  });
});
