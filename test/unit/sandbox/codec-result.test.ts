// encodeResult: a program's result as text within its limit, as the whole wire tree would be
// written and shrunk, without building that tree (sandbox/codec-result.ts).
import { describe, expect, it } from "vitest";
import { toWire } from "../../../sandbox/codec";
import { encodeResult } from "../../../sandbox/codec-result";
import { shrinkToFit, utf8Bytes } from "../../../sandbox/truncate";

/** What the harness answered before: the whole wire tree, shrunk. */
const wholeTree = (value: unknown, maxBytes: number) => shrinkToFit(toWire(value), maxBytes);

const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i} é😀`, tags: ["a", "b"] }));

const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));

const deep = (levels: number) => {
  let v: unknown = { leaf: "x".repeat(40) };
  for (let i = 0; i < levels; i++) v = { v, i };
  return v;
};

describe("encodeResult answers as the whole tree did", () => {
  it.each([
    ["a small object", { a: [1, 2, 3] }, 1_000],
    ["plain JSON that fits", rows(2_000), 1_048_576],
    ["a string that fits though it is over half the limit", "s".repeat(700), 1_000],
    ["a 50 MB string", "x".repeat(50 * 1024 * 1024), 10_000],
    ["100,000 rows", { rows: rows(100_000), total: 100_000 }, 4_096],
    ["100,000 rows, a larger limit", { rows: rows(100_000) }, 1_048_576],
    ["a wide object", wide, 2_000],
    ["a deep object", deep(100), 2_000],
    ["a deep object that fits", deep(100), 100_000],
    ["escapes", ['"\\\n\u0001', "\ud800", "😀".repeat(50)], 1_000],
    ["tags", [undefined, NaN, -0, Infinity, 10n ** 30n, new Date(0), () => 1, Symbol("s")], 1_000],
    ["maps and sets", { m: new Map([[1, { a: 1 }]]), s: new Set(["x", new Set([1])]) }, 1_000],
    ["bytes that fit", new Uint8Array(300).fill(7), 1_000],
    ["bytes over the limit", new Uint8Array(200_000).fill(7), 10_000],
    ["a DataView and a buffer", [new DataView(new ArrayBuffer(5)), new ArrayBuffer(3)], 1_000],
    ["an error", new RangeError("r".repeat(5_000)), 1_000],
    ["an object with a $cm key", { $cm: "mine", x: [1] }, 1_000],
    ["a __proto__ key", JSON.parse('{"__proto__":{"a":1},"b":2}'), 1_000],
    // oxlint-disable-next-line no-sparse-arrays -- a hole is what is tested
    ["holes and undefined members", [1, , 3, { u: undefined, f: () => 1 }], 1_000],
    ["a big map", new Map(Array.from({ length: 5_000 }, (_, i) => [i, `v${i}`])), 4_000],
    [
      "a cycle",
      (() => {
        const a: unknown[] = [1];
        a.push(a);
        return a;
      })(),
      1_000,
    ],
    ["a tiny limit", rows(10), 20],
  ])("%s", (_label, value, maxBytes) => {
    expect(encodeResult(value, maxBytes)).toEqual(wholeTree(value, maxBytes));
  });
});

describe("encodeResult is bounded by the limit, not by the tree", () => {
  it("cuts one view held a million times after counting part of it", () => {
    const view = new Uint8Array(1_023);
    // oxlint-disable-next-line unicorn/no-array-fill-with-reference-type -- one view held a million times is the attack
    const out = encodeResult(Array(1e6).fill(view), 100_000);
    expect(out.truncated).toBe(true);
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(100_000);
    // Counted until the budget (8 MiB) stopped it, not the 1.4 GB of the whole.
    expect(out.originalBytes).toBeGreaterThan(8 * 1_048_576);
    expect(out.originalBytes).toBeLessThan(9 * 1_048_576);
    expect(JSON.parse(out.text).at(-1)).toMatch(/^…\[\+\d+ items\]$/);
  });

  it("cuts an array doubled 40 times", () => {
    let x: unknown = ["leaf"];
    for (let i = 0; i < 40; i++) x = [x, x];
    const out = encodeResult(x, 10_000);
    expect(out.truncated).toBe(true);
    expect(utf8Bytes(out.text)).toBeLessThanOrEqual(10_000);
    expect(out.originalBytes).toBeLessThan(9 * 1_048_576);
  });
});

describe("encodeResult calls none of the program's methods", () => {
  /**
   * Runs `encode` with the program's hooks in place, put back before anything else runs (the
   * test runner itself uses these methods).
   */
  function hooked<T>(hooks: () => void, encode: () => T): T {
    const saved = [
      Array.prototype,
      String.prototype,
      Set.prototype,
      Date.prototype,
      Object.prototype,
    ].map(
      (proto) =>
        [proto, Object.getOwnPropertyDescriptors(proto)] as [object, PropertyDescriptorMap],
    );
    try {
      hooks();
      return encode();
    } finally {
      for (const [proto, descriptors] of saved) {
        for (const key of Reflect.ownKeys(proto))
          // Own keys only: `in` would see the setters a hook put on Object.prototype, leave
          // Array.prototype's in place, and every later push in this process would call them.
          if (!Object.hasOwn(descriptors, key)) Reflect.deleteProperty(proto, key);
        Object.defineProperties(proto, descriptors);
      }
    }
  }

  it("a toJSON on Array.prototype", () => {
    const value = { a: [1, [2]], big: "b".repeat(5_000) };
    const expected = wholeTree(value, 1_000);
    const [out, small] = hooked(
      () => {
        (Array.prototype as { toJSON?: unknown }).toJSON = () => "j".repeat(100_000);
      },
      () => [encodeResult(value, 1_000), encodeResult([[1]], 1_000)],
    );
    expect(out).toEqual(expected);
    expect(small.text).toBe("[[1]]");
  });

  it("replaced slice, map, push, Set.prototype.has and Date.prototype.toISOString", () => {
    const value = { list: rows(3_000), text: "t".repeat(5_000), cycle: [] as unknown[] };
    value.cycle.push(value.cycle);
    const expected = wholeTree(value, 4_000);
    const [out, date] = hooked(
      () => {
        /* oxlint-disable eslint/no-extend-native -- a hostile program's replacements, put back by hooked() */
        const flood = () => Array(1e4).fill("f".repeat(100));
        Array.prototype.slice = flood as never;
        Array.prototype.map = flood as never;
        Array.prototype.push = (() => 0) as never;
        String.prototype.slice = (() => "f".repeat(1e5)) as never;
        Set.prototype.has = () => false;
        Date.prototype.toISOString = () => "d".repeat(1e5);
        /* oxlint-enable eslint/no-extend-native */
      },
      () => [encodeResult(value, 4_000), encodeResult(new Date(0), 1_000)],
    );
    expect(out).toEqual(expected);
    expect(date.text).toBe('{"$cm":"date","v":"1970-01-01T00:00:00.000Z"}');
  });

  it("a setter on Array.prototype and Object.prototype sees nothing", () => {
    const seen: unknown[] = [];
    const value = { list: rows(3_000), more: { a: 1 } };
    const expected = wholeTree(value, 4_000);
    const out = hooked(
      () => {
        for (const key of ["0", "1", "a", "…", "list"])
          for (const proto of [Array.prototype, Object.prototype])
            Object.defineProperty(proto, key, {
              set: (v: unknown) => {
                seen.push(v);
              },
              configurable: true,
            });
      },
      () => encodeResult(value, 4_000),
    );
    for (const proto of [Array.prototype, Object.prototype])
      expect(Object.getOwnPropertyNames(proto).filter((key) => key === "0")).toEqual([]);
    expect(out).toEqual(expected);
    expect(seen).toEqual([]);
  });
});
