// shrinkToFit: results cut down to the byte budget, keeping their shape.
import { describe, expect, it } from "vitest";
import { toWire } from "../../../sandbox/codec";
import { shrinkToFit, utf8Bytes } from "../../../sandbox/truncate";

describe("shrinkToFit", () => {
  it("returns small values untouched", () => {
    const out = shrinkToFit(toWire({ a: [1, 2, 3] }), 1_000);
    expect(out).toEqual({ text: '{"a":[1,2,3]}', truncated: false, originalBytes: 13 });
  });
  it("cuts a 50 MB string to the budget with a marker, keeping valid JSON", () => {
    const big = "x".repeat(50 * 1024 * 1024);
    const out = shrinkToFit(big, 10_000);
    expect(out.truncated).toBe(true);
    expect(out.originalBytes).toBe(big.length + 2);
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(10_000);
    expect(JSON.parse(out.text)).toMatch(/^x+…\[\+\d+ chars\]$/);
  });
  it("keeps the structure of wide and deep values and says what was cut", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      tags: ["a", "b"],
    }));
    const out = shrinkToFit(toWire({ rows, total: rows.length }), 4_096);
    const parsed = JSON.parse(out.text) as { rows: unknown[]; total: number };
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(4_096);
    expect(parsed.total).toBe(100_000);
    expect(parsed.rows[0]).toEqual({ id: 0, name: "row 0", tags: ["a", "b"] });
    expect(String(parsed.rows.at(-1))).toMatch(/^…\[\+\d+ items\]$/);
  });
  it("marks cut object keys", () => {
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));
    const parsed = JSON.parse(shrinkToFit(wide, 2_000).text) as Record<string, unknown>;
    expect(parsed["…"]).toMatch(/^\[\+\d+ keys\]$/);
  });
  it("counts UTF-8 bytes, not UTF-16 units", () => {
    const out = shrinkToFit("é😀".repeat(10_000), 1_000);
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(1_000);
    expect(utf8Bytes("é😀")).toBe(6);
  });
  it("still answers valid JSON when even the smallest shape is too big", () => {
    const out = shrinkToFit(toWire(Array.from({ length: 10 }, () => ({ a: "y".repeat(100) }))), 20);
    expect(() => JSON.parse(out.text)).not.toThrow();
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(20);
  });
});

describe("utf8Bytes", () => {
  const encoded = (text: string) => new TextEncoder().encode(text).byteLength;
  // Short texts are counted in place, mid-sized ones encoded natively, huge ones counted again:
  // every branch must agree with the encoder, lone surrogates included (a host limit check that
  // undercounts them would let a crafted string past its byte budget).
  it.each([
    ["ascii", "abc"],
    ["two- and three-byte", "é€"],
    ["a pair", "😀"],
    ["a lone high surrogate before a three-byte character", "\ud800€"],
    ["a lone high surrogate at the end", "a\ud800"],
    ["a lone low surrogate", "\udc00a"],
    ["a reversed pair", "\ude00\ud83d"],
  ])("counts %s as the encoder does, at every size", (_label, unit) => {
    for (const times of [1, 400, 5_000, 30_000]) {
      const text = unit.repeat(times);
      expect(utf8Bytes(text)).toBe(encoded(text));
    }
  });
});
