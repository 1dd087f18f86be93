// The host's nesting check of wire JSON text: brackets inside strings (escaped quotes included)
// do not count, and text nested exactly to the limit passes.
import { describe, expect, it } from "vitest";
import { nestedDeeperThan } from "../../../src/executor/wire-nesting";

const nest = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);

describe("nestedDeeperThan", () => {
  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(nestedDeeperThan(nest(10), 10)).toBe(false);
    expect(nestedDeeperThan(nest(11), 10)).toBe(true);
    expect(nestedDeeperThan(`{"a":${nest(10)}}`, 10)).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify(['[[[[[[[[[[[[\\"[[[[[[[[[[[', '"{{{{{{{{{{{{{{{{{{{{{{']);
    expect(nestedDeeperThan(text, 2)).toBe(false);
    expect(nestedDeeperThan(`[${text}]`, 2)).toBe(false);
    expect(nestedDeeperThan(`[[${text}]]`, 2)).toBe(true);
  });

  it("counts siblings once: wide is not deep", () => {
    expect(nestedDeeperThan(`[${Array.from({ length: 5_000 }, () => "[[]]").join(",")}]`, 3)).toBe(
      false,
    );
  });
});
