// PreparedCache: the key (exact code and prelude), the bounds (count, characters, large
// programs never kept), least-recently-used eviction, frozen entries; and prepareCode through it
// giving what a fresh preparation gives.
import { describe, expect, it } from "vitest";
import {
  frozen,
  prepareCode,
  prepareUncached,
  type PrepareError,
  type PreparedCode,
} from "../../../src/executor/prepare-code";
import { PreparedCache } from "../../../src/executor/prepared-cache";

type Preparation = PreparedCode | PrepareError;

/** A cache over prepareUncached, weighed as prepare-code.ts does, counting its preparations. */
function counting(bounds = { entries: 3, chars: 10_000 }) {
  const cache = new PreparedCache<Preparation>(
    (v) => (v.ok ? v.module.length + v.source.length : v.message.length),
    bounds,
  );
  let prepared = 0;
  const get = (code: string, prelude?: string): Preparation =>
    cache.get(code, prelude, () => {
      prepared++;
      return frozen(prepareUncached(code, prelude));
    });
  return { cache, get, prepared: () => prepared };
}

describe("PreparedCache key", () => {
  it("prepares the same code once and hands back the same result", () => {
    const c = counting();
    const first = c.get("async () => 1");
    const second = c.get("async () => 1");
    expect(c.prepared()).toBe(1);
    expect(second).toBe(first);
  });

  it("tells apart code that differs by one character, even only in whitespace", () => {
    const c = counting();
    c.get("async () => 1");
    c.get("async () => 1 ");
    c.get("async () => 2");
    expect(c.prepared()).toBe(3);
  });

  it("tells apart no prelude, an empty prelude and a prelude moved into the code", () => {
    const c = counting({ entries: 10, chars: 10_000 });
    const none = c.get("async () => x");
    const empty = c.get("async () => x", "");
    // The same characters split differently between prelude and code: another key.
    const a = c.get("1;async () => x", "const x = ");
    const b = c.get("async () => x", "const x = 1;");
    expect(c.prepared()).toBe(4);
    expect(none).not.toBe(empty);
    expect(a).not.toBe(b);
    if (!b.ok) throw new Error("expected ok");
    expect(b.module.startsWith("const x = 1;\n")).toBe(true);
  });

  it("keeps syntax errors too, with their positions", () => {
    const c = counting();
    c.get("async () => {\n  return (;\n}");
    const again = c.get("async () => {\n  return (;\n}");
    expect(c.prepared()).toBe(1);
    expect(again).toMatchObject({ ok: false, name: "SyntaxError", line: 2 });
  });
});

describe("PreparedCache bounds", () => {
  it("holds at most `entries`, dropping the least recently used", () => {
    const c = counting({ entries: 2, chars: 10_000 });
    c.get("async () => 1");
    c.get("async () => 2");
    c.get("async () => 1"); // 1 is now the most recently used
    c.get("async () => 3"); // drops 2
    expect(c.cache.size.entries).toBe(2);
    expect(c.prepared()).toBe(3);
    c.get("async () => 1");
    expect(c.prepared()).toBe(3);
    c.get("async () => 2");
    expect(c.prepared()).toBe(4);
  });

  it("holds at most `chars` characters over all entries", () => {
    // Each entry holds ~180 characters (key, source and module with its import line).
    const c = counting({ entries: 100, chars: 2000 });
    for (let i = 0; i < 20; i++) c.get(`async () => ${"1+".repeat(10)}${i}`);
    expect(c.cache.size.chars).toBeLessThanOrEqual(2000);
    expect(c.cache.size.entries).toBeGreaterThan(0);
    expect(c.cache.size.entries).toBeLessThan(20);
  });

  it("never keeps a program over a quarter of the characters, and still prepares it", () => {
    const c = counting({ entries: 100, chars: 400 });
    const big = `async () => ${"1+".repeat(60)}1`;
    const first = c.get(big);
    const second = c.get(big);
    expect(first.ok && second.ok).toBe(true);
    expect(c.prepared()).toBe(2);
    expect(c.cache.size).toEqual({ entries: 0, chars: 0 });
  });

  it("keeps nothing with a bound of no entries", () => {
    const c = counting({ entries: 0, chars: 10_000 });
    c.get("async () => 1");
    c.get("async () => 1");
    expect(c.prepared()).toBe(2);
    expect(c.cache.size.entries).toBe(0);
  });
});

describe("prepareCode through the cache", () => {
  it("hands out frozen preparations: no run can change what the next one reads", () => {
    const p = prepareCode("async () => { for (;;) {} }");
    if (!p.ok) throw new Error("expected ok");
    expect(prepareCode("async () => { for (;;) {} }")).toBe(p);
    expect(Object.isFrozen(p) && Object.isFrozen(p.insertions)).toBe(true);
    expect(p.insertions.every((i) => Object.isFrozen(i))).toBe(true);
    expect(() => (p.insertions as unknown as unknown[]).push({ at: 0, text: "x" })).toThrow(
      TypeError,
    );
  });

  it("gives what a fresh preparation gives, for every form, with and without a prelude", () => {
    const programs = [
      "async () => { for (;;) {} }",
      "const a = 1;\na + 1",
      "export default async () => { while (true) {} }",
      "async function main() { try { return 1 } catch { return 2 } }",
      "async (): Promise<number> => { const n: number = 1; return n; }",
      "```js\nasync () => 1\n```",
      "import x from 'y'; export default async () => x",
    ];
    for (const code of programs) {
      for (const prelude of [undefined, "const __k = 1;"]) {
        const fresh = prepareUncached(code, prelude);
        expect(prepareCode(code, prelude)).toEqual(fresh);
        expect(prepareCode(code, prelude)).toEqual(fresh);
      }
    }
  });
});
