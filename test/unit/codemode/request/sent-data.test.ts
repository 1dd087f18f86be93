// What a program sends to an upstream tool, redacted in slices (src/codemode/request/sent-data.ts,
// issue #40): the copy is exactly `redactor.data`'s, and a large value gives the thread away
// between slices (pauses counted, never timed).
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { SLICE_POSITIONS } from "../../../../src/codemode/redaction/slices";
import { sentCheck } from "../../../../src/codemode/request/sent-check";
import { sentData, sentWork } from "../../../../src/codemode/request/sent-data";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const redactor = secretRedactor(Object.freeze([`Bearer ${TOKEN}`, TOKEN]));
const numeric = secretRedactor(Object.freeze(["4040404040404040"]));
const percent = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16)}`).join("");
const quiet = { yieldThread: async () => {} };

const clean = { a: [1, "two", { three: true }], b: null, c: new Date(0) };
const values: Record<string, [unknown, typeof redactor]> = {
  "clean data": [clean, redactor],
  "the token in a value, a key and a nested array": [
    { note: `see ${TOKEN}`, [TOKEN]: 1, deep: [[percent(TOKEN)], "ok"] },
    redactor,
  ],
  "bytes, a buffer, a view and an error": [
    {
      bytes: new TextEncoder().encode(`x${TOKEN}`),
      buffer: new TextEncoder().encode(TOKEN).buffer,
      view: new DataView(new TextEncoder().encode(`..${TOKEN}`).buffer),
      fine: new Uint8Array([1, 2, 3]),
      error: Object.assign(new Error(`failed with ${TOKEN}`), { name: "TypeError" }),
    },
    redactor,
  ],
  "maps and sets": [
    new Map<unknown, unknown>([
      [TOKEN, new Set(["a", TOKEN])],
      ["k", 1],
    ]),
    redactor,
  ],
  "numbers, when a secret reads as one": [
    { n: 4040404040404040, s: "4040404040404040", m: [1, 2n, 3] },
    numeric,
  ],
  "numbers, when no secret reads as one": [{ n: 4040404040404040, big: 12n }, redactor],
  "a large string with the token in escapes": [
    { body: `${"%25".repeat(100_000)}${percent(TOKEN)}`, items: ["a", TOKEN] },
    redactor,
  ],
  "a cycle": [
    (() => {
      const loop: Record<string, unknown> = { a: "x" };
      loop.self = loop;
      return loop;
    })(),
    redactor,
  ],
  "an object met twice, no cycle": [
    (() => {
      const shared = { a: "x" };
      return [shared, { b: shared }];
    })(),
    redactor,
  ],
  "NaN and a clean error": [{ n: Number.NaN, e: new Error("fine") }, numeric],
  "nesting deeper than the copy follows": [
    Array.from({ length: 210 }).reduce<unknown>((inner) => ({ inner }), { end: TOKEN }),
    redactor,
  ],
};

describe("data a program sends, redacted in slices", () => {
  it.each(Object.entries(values))("is redactor.data's copy: %s", async (_, [value, r]) => {
    const copy = await sentData(value, r, sentCheck(r, quiet), "x()");
    expect(copy).toEqual(r.data(value));
    if (r.data(value) === value) expect(copy).toBe(value);
  });

  it("gives the thread away while walking many small parts", async () => {
    let pauses = 0;
    const check = sentCheck(redactor, { yieldThread: async () => void pauses++ });
    const items = Array.from({ length: 40_000 }, (_, i) => `item ${i} %25%41`);
    const copy = await sentData({ items }, redactor, check, "x()");
    expect(copy).toEqual({ items });
    const chars = items.reduce((sum, item) => sum + item.length, 0);
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(chars / SLICE_POSITIONS));
    expect(check.charged).toBeGreaterThanOrEqual(chars);
  });

  // The copy is one walk over every part between two pauses (a value of a million parts): a
  // value whose parts are all clean is not copied at all, it is the copy.
  it("does not walk a clean value a second time", async () => {
    const items = Array.from({ length: 50_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
    const before = sentWork.copied;
    const copy = await sentData({ items }, redactor, sentCheck(redactor, quiet), "x()");
    expect(copy.items).toBe(items);
    expect(sentWork.copied - before).toBe(0);
    const dirty = [...items, TOKEN];
    const cut = await sentData(dirty, redactor, sentCheck(redactor, quiet), "x()");
    // redactor.data's copy, part by part: a clean item is its own copy (as every item here is
    // built alike, one stands for all), the token its redaction. The whole value through
    // redactor.data took 3-6 s of the test's 6-12 s alone, for the same answer.
    expect(redactor.data(items[0])).toBe(items[0]);
    expect(cut).toEqual([...items, redactor.data(TOKEN)]);
    expect(sentWork.copied - before).toBeGreaterThan(items.length);
  });

  // With something to cut, the copy walks every part: it pauses every SLICE_POSITIONS parts
  // (a value of a million parts with one secret in it was copied in one walk, issue #40).
  it("copies a large value with a secret in it in slices", async () => {
    const items = Array.from({ length: 120_000 }, (_, i) => ({ id: i, tags: ["a", i] }));
    // A hole stays a hole (the copy skips it, as `forEach` does).
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    const value = { items, sparse, echo: TOKEN };
    let [last, most] = [sentWork.copied, 0];
    const check = sentCheck(redactor, {
      yieldThread: async () => {
        most = Math.max(most, sentWork.copied - last);
        last = sentWork.copied;
      },
    });
    const start = sentWork.copied;
    const copy = await sentData(value, redactor, check, "x()");
    most = Math.max(most, sentWork.copied - last);
    // redactor.data's copy, field by field: `items` is clean, so its copy is `items` itself
    // (asserted below). The whole value through redactor.data took ~11 s alone (a core for
    // every part of the 120,000 items), for the same answer.
    expect(copy).toEqual({ items, sparse: redactor.data(sparse), echo: redactor.data(TOKEN) });
    expect(1 in copy.sparse).toBe(false);
    expect(copy.items).toBe(items);
    expect(sentWork.copied - start).toBeGreaterThan(4 * items.length);
    expect(most).toBeLessThanOrEqual(SLICE_POSITIONS + 1);
  });

  it("refuses data past the run's budget", async () => {
    const check = sentCheck(redactor, { ...quiet, maxChars: 1000 });
    await expect(
      sentData({ a: "x".repeat(1001) }, redactor, check, "codemode.post()"),
    ).rejects.toMatchObject({ name: "LimitError" });
  });
});
