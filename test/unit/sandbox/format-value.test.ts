// formatValue: how console arguments are printed in the sandbox.
import { describe, expect, it } from "vitest";
import { formatLogArgs, formatValue } from "../../../sandbox/format-value";

describe("formatValue", () => {
  it("renders objects readably, never [object Object]", () => {
    expect(formatLogArgs(["user", { id: 1, name: "a b", tags: ["x"] }])).toBe(
      'user { id: 1, name: "a b", tags: ["x"] }',
    );
  });
  it("renders errors, dates, maps, sets, bytes, bigints and functions", () => {
    expect(formatValue(new TypeError("bad"))).toBe("TypeError: bad");
    expect(formatValue(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
    expect(formatValue(new Map([["a", 1]]))).toBe('Map(1) { "a" => 1 }');
    expect(formatValue(new Set([1]))).toBe("Set(1) { 1 }");
    expect(formatValue(new Uint8Array([1, 2]))).toBe("Uint8Array(2) [ 1, 2 ]");
    expect(formatValue(5n)).toBe("5n");
    expect(formatValue(function f() {})).toBe("[Function f]");
  });
  it("marks cycles and bounds depth and width", () => {
    const a: Record<string, unknown> = { n: 1 };
    a["self"] = a;
    expect(formatValue(a)).toBe("{ n: 1, self: [Circular] }");
    expect(formatValue({ a: { b: { c: { d: { e: 1 } } } } })).toBe(
      "{ a: { b: { c: { d: [Object] } } } }",
    );
    expect(formatValue(Array.from({ length: 60 }, (_, i) => i))).toMatch(/, 49, … 10 more\]$/);
  });
});
