// The position map from prepared code back to the model's own lines and columns.
import { describe, expect, it } from "vitest";
import {
  applyInsertions,
  offsetOf,
  originalOffset,
  positionOf,
} from "../../../src/executor/position-map";

describe("position map", () => {
  const source = "ab\ncd\nef";
  const insertions = [
    { at: 0, text: "<<" },
    { at: 4, text: "[]" },
  ];
  const generated = applyInsertions(source, insertions);
  it("applies insertions", () => expect(generated).toBe("<<ab\nc[]d\nef"));
  it("maps generated offsets back to the original", () => {
    expect(originalOffset(generated.indexOf("a"), insertions)).toBe(0);
    expect(originalOffset(generated.indexOf("d"), insertions)).toBe(4);
    expect(originalOffset(generated.indexOf("["), insertions)).toBe(4);
    expect(originalOffset(generated.indexOf("f"), insertions)).toBe(7);
  });
  it("converts between offsets and 1-based positions", () => {
    expect(positionOf(source, 4)).toEqual({ line: 2, column: 2 });
    expect(offsetOf(source, { line: 3, column: 2 })).toBe(7);
    expect(offsetOf(source, { line: 9, column: 1 })).toBeUndefined();
  });
});
