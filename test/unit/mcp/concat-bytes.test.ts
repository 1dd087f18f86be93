// concatBytes (src/mcp/common/concat-bytes.ts): a body read in pieces, joined in order; one piece
// comes back as it is.
import { describe, expect, it } from "vitest";
import { concatBytes } from "../../../src/mcp/common/concat-bytes";

describe("concatBytes", () => {
  it("joins the pieces in order", () => {
    const pieces = [Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(3), Uint8Array.of(4, 5)];
    expect([...concatBytes(pieces, 5)]).toEqual([1, 2, 3, 4, 5]);
  });

  it("gives a single piece back uncopied, and nothing as an empty array", () => {
    const one = Uint8Array.of(7, 8);
    expect(concatBytes([one], 2)).toBe(one);
    expect(concatBytes([], 0)).toEqual(new Uint8Array(0));
  });
});
