// The map from a view back to the text it was made from (issue #40: a flood of escapes is a
// million sequences a view, so it is stored as a byte per sequence in the common case): it must
// answer exactly what a plain array of every sequence's positions answers, for short and long
// records, across storage blocks, read in order and at random.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { SequenceMap } from "../../../../src/codemode/redaction/sequence-map";
import { ViewBuilder } from "../../../../src/codemode/redaction/view-builder";

/** A sequence as a plain record, input start included. */
type Plain = { outStart: number; outLength: number; inStart: number; inLength: number };

/** The same map kept as plain records, answering as the map's origin is documented to. */
function plainOrigin(all: Plain[]) {
  return (i: number, end: boolean): number => {
    let found = -1;
    for (let t = 0; t < all.length; t++) if (all[t]!.outStart <= i) found = t;
    if (end)
      while (found > 0 && all[found - 1]!.outStart === i && all[found - 1]!.outLength === 0)
        found--;
    if (found < 0) return i;
    const { outStart, outLength, inStart, inLength } = all[found]!;
    if (i === outStart && (end || outLength > 0)) return inStart;
    if (i < outStart + outLength) return end ? inStart + inLength : inStart;
    return inStart + inLength + (i - outStart - outLength);
  };
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  return () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
}

/** `count` sequences with gaps and lengths drawn to hit every record form. */
function sequences(count: number, seed: number): Plain[] {
  const next = random(seed);
  const all: Plain[] = [];
  let [out, inn] = [0, 0];
  for (let t = 0; t < count; t++) {
    const r = next();
    // Mostly what floods of escapes make (one byte a record), sometimes long gaps, long
    // inputs, empty inputs, outputs of 0 or 2+ characters.
    const gap = r < 0.7 ? Math.floor(next() * 4) : r < 0.9 ? Math.floor(next() * 300) : 70_000;
    const outLength = next() < 0.8 ? 1 : next() < 0.5 ? 0 : 2 + Math.floor(next() * 200);
    const inLength = next() < 0.8 ? 1 + Math.floor(next() * 16) : Math.floor(next() * 5000);
    out += gap;
    inn += gap;
    all.push({ outStart: out, outLength, inStart: inn, inLength });
    out += outLength;
    inn += inLength;
  }
  return all;
}

describe("SequenceMap", () => {
  it.each([0, 1, 31, 32, 33, 5_000, 150_000])(
    "answers as plain records do for %i sequences",
    (count) => {
      const all = sequences(count, count + 7);
      const map = new SequenceMap();
      for (const s of all) map.add(s.outStart, s.outLength, s.inLength);
      expect(map.count).toBe(count);
      // In order (as a decoding step reads its windows), then backwards (every lookup seeks).
      const wrong: number[] = [];
      for (let t = 0; t < count; t++)
        if (map.outStart(t) !== all[t]!.outStart || map.outLength(t) !== all[t]!.outLength)
          wrong.push(t);
      for (let t = count - 1; t >= 0; t -= 97)
        if (map.outStart(t) !== all[t]!.outStart) wrong.push(t);
      expect(wrong).toEqual([]);
      const origin = map.origin();
      const plain = plainOrigin(all.slice(0, Math.min(count, 3_000)));
      const last = count === 0 ? 10 : all[Math.min(count, 3_000) - 1]!.outStart;
      const next = random(count);
      for (let k = 0; k < 400; k++) {
        const i = Math.floor(next() * (last + 2));
        for (const end of [false, true])
          expect([i, end, origin(i, end)]).toEqual([i, end, plain(i, end)]);
      }
      // Exactly at every sequence's bounds, where the rules differ.
      for (const s of all.slice(0, 200))
        for (const i of [s.outStart, s.outStart + s.outLength])
          for (const end of [false, true])
            expect([i, end, origin(i, end)]).toEqual([i, end, plain(i, end)]);
    },
  );

  it("keeps a flood of escapes in about a byte and a half per sequence", () => {
    // `%25` repeated: every sequence 3 characters to 1, no gap.
    const map = new SequenceMap();
    for (let t = 0; t < 1_000_000; t++) map.add(t, 1, 3);
    const bytes = (map as unknown as { blocks: Uint8Array[]; checks: Int32Array }).blocks.reduce(
      (sum, block) => sum + block.byteLength,
      0,
    );
    expect(bytes).toBeLessThan(1_050_000);
    expect((map as unknown as { checks: Int32Array }).checks.byteLength).toBeLessThan(600_000);
    expect(map.origin()(999_999, false)).toBe(2_999_997);
  });

  it("refuses a sequence added before the end of the last", () => {
    const map = new SequenceMap();
    map.add(5, 1, 3);
    expect(() => map.add(5, 1, 3)).toThrow(RangeError);
  });
});

describe("a map before its first sequence", () => {
  /** Counts the typed arrays of `Kind` made while `make` runs (the global swapped meanwhile). */
  function counting<T>(
    kind: "Uint8Array" | "Int32Array",
    make: () => T,
  ): { made: number; value: T } {
    const real = globalThis[kind];
    let made = 0;
    // oxlint-disable-next-line typescript/no-explicit-any -- the constructor swapped for a count
    (globalThis as any)[kind] = class extends (real as any) {
      constructor(...args: unknown[]) {
        super(...args);
        made++;
      }
    };
    try {
      return { value: make(), made };
    } finally {
      (globalThis as Record<string, unknown>)[kind] = real;
    }
  }

  it("allocates no typed array: every view of every small value makes one (issue #43)", () => {
    const bytes = counting("Uint8Array", () => counting("Int32Array", () => new SequenceMap()));
    expect(bytes.made).toBe(0);
    expect(bytes.value.made).toBe(0);
  });

  it("still records and answers once sequences arrive, in two maps apart", () => {
    const [a, b] = [new SequenceMap(), new SequenceMap()];
    a.add(2, 1, 3);
    b.add(0, 0, 5);
    const plainA = plainOrigin([{ outStart: 2, outLength: 1, inStart: 2, inLength: 3 }]);
    const plainB = plainOrigin([{ outStart: 0, outLength: 0, inStart: 0, inLength: 5 }]);
    for (let i = 0; i < 6; i++)
      for (const end of [false, true]) {
        expect(a.origin()(i, end)).toBe(plainA(i, end));
        expect(b.origin()(i, end)).toBe(plainB(i, end));
        expect(new SequenceMap().origin()(i, end)).toBe(i);
      }
  });
});

describe("a view whose buffer is widened inside one replacement", () => {
  // NFKC folds `¼` to `1⁄4`: the first character beyond Latin-1 came after `1` in the same
  // write, and what that write put before it was not counted, so the next replacement's place
  // was one short ("sequences must be added in order", or a map one character off).
  it("counts every character written and maps back exactly", () => {
    const builder = new ViewBuilder("ab¼cd");
    builder.replace(2, 1, "1\u20444");
    builder.replace(3, 1, "C");
    expect(builder.finish()).toBe("ab1\u20444Cd");
    const origin = builder.map.origin();
    expect([origin(5, false), origin(6, true), origin(6, false)]).toEqual([3, 4, 4]);
    expect([builder.map.outStart(1), builder.map.outLength(1)]).toEqual([5, 1]);
  });
});

describe("a text whose compact view widens inside a replacement (hostile)", () => {
  // Before: `¼` followed by a space made the compact view throw, and the whole redaction with it.
  it("is redacted, not refused with an error", () => {
    const secret = "tok_9f8e7d6c5b4a3z";
    const redactor = secretRedactor([secret]);
    const text = `note: ¼ of ${secret} and ½ more`;
    expect(redactor.text(text)).toBe("note: ¼ of [REDACTED] and ½ more");
  });
});

describe("a view builder taken back to a mark", () => {
  // The lists view reads a run of numbers as decimal at once, marked, and takes it back when the
  // hex reading of the same run proves longer (src/codemode/redaction/spellings/lists-view.ts).
  // What is taken back may have filled a storage block of the map (64 KiB of records) and grown
  // the buffer: the view must be exactly the one built without it.
  const text = `${"ab".repeat(50)}${"12 ".repeat(100_000)}6f tail`;
  const start = 100;
  const build = (speculate: boolean) => {
    const builder = new ViewBuilder(text);
    builder.replaceCode(2, 2, 0x263a);
    if (speculate) {
      builder.mark(start);
      for (let i = start; i < start + 300_000; i += 3) builder.replaceCode(i, 3, 12);
      builder.rollback();
    }
    for (let i = start; i < start + 300_000; i += 3) builder.replaceCode(i, 3, 0x12);
    builder.replaceCode(start + 300_000, 2, 0x6f);
    return builder;
  };

  it("builds the view and its map as if nothing had been written after the mark", () => {
    const [marked, plain] = [build(true), build(false)];
    const view = marked.finish();
    expect(view).toBe(plain.finish());
    expect(marked.map.count).toBe(plain.map.count);
    const [a, b] = [marked.map.origin(), plain.map.origin()];
    for (const i of [0, 2, 3, 99, 100, 101, 50_000, 99_999, 100_000, 100_001, view!.length])
      expect([a(i, false), a(i, true)]).toEqual([b(i, false), b(i, true)]);
    for (const t of [0, 1, 31, 32, 65_535, 65_536, 70_000, marked.map.count - 1])
      expect([marked.map.outStart(t), marked.map.outLength(t)]).toEqual([
        plain.map.outStart(t),
        plain.map.outLength(t),
      ]);
  });

  it("keeps what was copied before the mark, a long span too", () => {
    const builder = new ViewBuilder(text);
    builder.mark(start);
    builder.replaceCode(start, 3, 0x41);
    builder.rollback();
    builder.replaceCode(start + 3, 3, 0x42);
    expect(builder.finish()).toBe(`${"ab".repeat(50)}12 B${"12 ".repeat(99_998)}6f tail`);
  });
});
