// Whether a body is JSON, decided without building it (src/mcp/common/json-well-formed.ts): a
// body past the shape limits is answered -32700 when it is not JSON, -32600 when it is, and the
// pass must agree with JSON.parse on every text, the one judge of what is JSON.
import { describe, expect, it } from "vitest";
import { isWellFormedJson } from "../../../src/mcp/common/json-well-formed";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const SAMPLES = [
  "",
  " ",
  "1",
  "-0",
  "-",
  "01",
  "1.",
  ".5",
  "1e5",
  "1E+5",
  "1e",
  "0x10",
  "+1",
  "true",
  "tru",
  "truex",
  "null",
  "nul",
  "false ",
  '""',
  '"',
  '"\\"',
  '"\\u00e9"',
  '"\\u00g9"',
  '"\\x"',
  '"\\/"',
  '"a\tb"',
  '"a\u007fb"',
  '"\ud800"',
  "[]",
  "[",
  "]",
  "[1,]",
  "[,1]",
  "[1 2]",
  "[1,2]",
  "{}",
  "{",
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '{"a":1 "b":2}',
  '{"a":1,"b":[{}]}',
  "{1:2}",
  "{'a':1}",
  '{"a":1]',
  '[{"a":1}}',
  "\ufeff{}",
  "\u00a0{}",
  " \t\n\r[ \t\n\r1 \t\n\r] \t\n\r",
  "[1]x",
  "[1][2]",
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
];

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON value's text, then maybe one character changed, dropped or added. */
function sample(next: () => number): string {
  const value = (depth: number): unknown => {
    const pick = Math.floor(next() * (depth > 3 ? 4 : 6));
    if (pick === 0) return Math.floor(next() * 2000) / (next() < 0.5 ? 1 : 7) - 500;
    if (pick === 1) return ["", 'a"b', "\\", "é\n", "\u0001", "😀"][Math.floor(next() * 6)];
    if (pick === 2) return [true, false, null][Math.floor(next() * 3)];
    if (pick === 3) return "x";
    if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`k${i}`, value(depth + 1)]),
    );
  };
  let text = JSON.stringify(value(0));
  if (next() < 0.7) {
    const at = Math.floor(next() * (text.length + 1));
    const char = '{}[]",:.-+e0 \\tnu\u0000'[Math.floor(next() * 19)]!;
    const how = Math.floor(next() * 3);
    text =
      how === 0
        ? text.slice(0, at) + text.slice(at + 1)
        : how === 1
          ? text.slice(0, at) + char + text.slice(at)
          : text.slice(0, at) + char + text.slice(at + 1);
  }
  return text;
}

describe("isWellFormedJson", () => {
  it("agrees with JSON.parse on edge texts", () => {
    for (const text of SAMPLES)
      expect([text, isWellFormedJson(text)]).toEqual([text, parses(text)]);
  });

  it("agrees with JSON.parse on 20,000 random texts, most of them broken by one character", () => {
    const next = random(40);
    let broken = 0;
    for (let n = 0; n < 20_000; n++) {
      const text = sample(next);
      const expected = parses(text);
      if (!expected) broken++;
      expect([text, isWellFormedJson(text)]).toEqual([text, expected]);
    }
    // Both answers were tried many times.
    expect(broken).toBeGreaterThan(5_000);
    expect(broken).toBeLessThan(19_000);
  });

  it("reads a text nested a million levels deep without a stack, either way", () => {
    const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    expect(isWellFormedJson(deep)).toBe(true);
    expect(isWellFormedJson(deep + "x")).toBe(false);
    expect(isWellFormedJson(deep.slice(0, -1))).toBe(false);
    const objects = '{"a":'.repeat(200_000) + "1" + "}".repeat(200_000);
    expect(isWellFormedJson(objects)).toBe(true);
    expect(isWellFormedJson(objects.replace('{"a":1}', '{"a":1]'))).toBe(false);
  });
});
