/**
 * asciiJson (cli/ascii-json.mjs), the launch spec var's text: ASCII only (V8 then keeps it one
 * byte a character in the host runtime), and the same value back through JSON.parse, whatever
 * the characters (BMP, astral pairs, a lone surrogate, controls, quotes).
 */
import { describe, expect, it } from "vitest";
import { asciiJson } from "../../../cli/ascii-json.mjs";

describe("asciiJson", () => {
  it("escapes every character past ASCII and parses back to the same value", () => {
    const value = {
      "name—é": ["a — b → c", "😀", "\ud800 alone", 'quote " and \\ and \n', 1.5, null, true],
    };
    const text = asciiJson(value);
    expect(text).not.toMatch(/[\u0080-\uffff]/);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain("\\u2014");
  });

  it("is JSON.stringify's text when there is nothing to escape", () => {
    const value = { a: [1, "plain"], b: { c: "x" } };
    expect(asciiJson(value)).toBe(JSON.stringify(value));
  });
});
