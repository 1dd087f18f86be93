// The sandbox wire codec: values across the host/sandbox boundary round-trip.
import { describe, expect, it, vi } from "vitest";
import { BESIDE_MIN_BYTES, encodeParts, encodeValue } from "../../../sandbox/codec";
import { decodeParts, decodeValue } from "../../../sandbox/codec-decode";

const roundTrip = (value: unknown) => decodeValue(encodeValue(value));

describe("wire codec", () => {
  it("round-trips JSON values unchanged", () => {
    const value = { a: 1, b: "x", c: [true, null, { d: 2.5 }], e: "" };
    expect(roundTrip(value)).toEqual(value);
  });
  it("keeps what JSON loses: undefined in arrays, bigint, special numbers, dates, bytes, maps, sets", () => {
    const out = roundTrip([
      undefined,
      10n ** 30n,
      NaN,
      Infinity,
      -Infinity,
      -0,
      new Date("2026-01-02T03:04:05.000Z"),
    ]) as unknown[];
    expect(out[0]).toBeUndefined();
    expect(out[1]).toBe(10n ** 30n);
    expect(out[2]).toBeNaN();
    expect(out.slice(3, 5)).toEqual([Infinity, -Infinity]);
    expect(Object.is(out[5], -0)).toBe(true);
    expect(out[6]).toEqual(new Date("2026-01-02T03:04:05.000Z"));
    const bytes = new Uint8Array(256).map((_, i) => i);
    expect(roundTrip(bytes)).toEqual(bytes);
    for (let n = 0; n < 5; n++)
      expect(roundTrip(bytes.subarray(0, n))).toEqual(bytes.subarray(0, n));
    expect(new Uint8Array(roundTrip(bytes.buffer) as ArrayBuffer)).toEqual(bytes);
    expect(
      roundTrip(
        new Map<unknown, unknown>([
          ["k", 1],
          [2, { z: 1 }],
        ]),
      ),
    ).toEqual(
      new Map<unknown, unknown>([
        ["k", 1],
        [2, { z: 1 }],
      ]),
    );
    expect(roundTrip(new Set([1, "a"]))).toEqual(new Set([1, "a"]));
  });
  it("turns errors, functions, symbols and cycles into readable markers instead of failing", () => {
    const cyclic: Record<string, unknown> = { name: "root" };
    cyclic["self"] = cyclic;
    expect(roundTrip(cyclic)).toEqual({ name: "root", self: "[Circular]" });
    const err = roundTrip(new RangeError("bad")) as Error;
    expect(err).toBeInstanceOf(Error);
    expect([err.name, err.message]).toEqual(["RangeError", "bad"]);
    expect(roundTrip([function named() {}, Symbol("s")])).toEqual([
      "[Function named]",
      "Symbol(s)",
    ]);
  });
  it("drops undefined and function properties like JSON does", () => {
    expect(roundTrip({ a: undefined, b: () => 1, c: 1 })).toEqual({ c: 1 });
  });
  it("escapes user objects that look like tags", () => {
    const tricky = { $cm: "bigint", v: "1" };
    expect(roundTrip(tricky)).toEqual(tricky);
  });
  it("never lets a __proto__ key pollute prototypes", () => {
    const decoded = decodeValue('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(["__proto__", "a"]);
  });
  it("sends plain JSON as plain JSON text and tags only what needs it", () => {
    const plain = { a: [1, "x", null, { b: false }], "": 0 };
    expect(encodeValue(plain)).toBe(JSON.stringify(plain));
    // One special value anywhere switches to the tagged form, which still round-trips.
    expect(encodeValue({ a: [1, -0] })).toContain('"$cm"');
    expect(Object.is((roundTrip({ a: [1, -0] }) as { a: number[] }).a[1], -0)).toBe(true);
    expect(encodeValue({ a: new Date(0) })).toContain('"date"');
    const withProto = Object.create({ inherited: 1 }) as Record<string, unknown>;
    withProto["own"] = 1;
    expect(roundTrip(withProto)).toEqual({ own: 1 });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    expect(roundTrip(cyclic)).toEqual({ a: 1, self: "[Circular]" });
  });
  it("keeps a __proto__ key an own property on the plain path and the tagged path", () => {
    for (const text of [
      '{"__proto__":{"polluted":true}}',
      '{"__proto__":{"polluted":true},"d":{"$cm":"undefined"}}',
    ]) {
      const decoded = decodeValue(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
      expect(Object.hasOwn(decoded, "__proto__")).toBe(true);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    }
  });
  it("survives very deep nesting", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5_000; i++) deep = [deep];
    expect(() => encodeValue(deep)).not.toThrow();
  });
  it("sends bytes as standard base64 and back, across the encoder's pieces", () => {
    // Seeded bytes of every value, at lengths around the encoder's pieces (6,144 bytes each).
    let x = 0x2545f491;
    const all = new Uint8Array(3 * 6_144 + 2).map(() => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xff;
    });
    for (const n of [0, 1, 2, 3, 4, 6_143, 6_144, 6_145, 6_146, 2 * 6_144 + 1, all.length]) {
      const bytes = all.subarray(0, n);
      const text = encodeValue(bytes);
      expect(JSON.parse(text)).toEqual({ $cm: "bytes", v: Buffer.from(bytes).toString("base64") });
      expect(decodeValue(text)).toEqual(bytes);
    }
  });
  it("decodes base64 as it always did: padding, line breaks and other characters skipped", () => {
    const bytes = (v: string) => decodeValue(JSON.stringify({ $cm: "bytes", v }));
    expect(bytes("QUJD")).toEqual(new Uint8Array([65, 66, 67]));
    expect(bytes("QU\nJ\r\nD")).toEqual(new Uint8Array([65, 66, 67]));
    expect(bytes("QQ==")).toEqual(new Uint8Array([65]));
    expect(bytes("QUI=")).toEqual(new Uint8Array([65, 66]));
    // A last lone character makes no byte; characters beyond Latin-1 are not base64 either.
    expect(bytes("QUJDR")).toEqual(new Uint8Array([65, 66, 67]));
    expect(bytes("Q\u0141Q")).toEqual(new Uint8Array([65]));
    expect(bytes("")).toEqual(new Uint8Array(0));
    const buffer = decodeValue(JSON.stringify({ $cm: "arraybuffer", v: "AP8H" }));
    expect(new Uint8Array(buffer as ArrayBuffer)).toEqual(new Uint8Array([0, 255, 7]));
  });
  it("decodes without the string methods a sandboxed program is charged for", () => {
    // In the sandbox these are wrapped and charged to the program's budget (native-charges.ts):
    // the decoder's replace and indexOf charged a 4 MiB binary answer 57 million operations.
    // (`includes` is not here: decodeValue's one look for a tag stays the program's own, see there.)
    const text = encodeValue({ body: new Uint8Array(3_000).fill(7) });
    const spies = (["replace", "replaceAll", "indexOf", "split"] as const).map((name) =>
      vi.spyOn(String.prototype, name),
    );
    try {
      const decoded = decodeValue(text) as { body: Uint8Array };
      expect(decoded.body).toEqual(new Uint8Array(3_000).fill(7));
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  describe("binary values beside the text (host calls)", () => {
    const sized = (n: number) => new Uint8Array(n).map((_, i) => (i * 31) & 255);
    it(`carries values of ${BESIDE_MIN_BYTES} bytes or more beside the text, smaller ones inside`, () => {
      const value = {
        body: sized(BESIDE_MIN_BYTES),
        small: sized(BESIDE_MIN_BYTES - 1),
        raw: sized(5_000).buffer,
      };
      const parts = encodeParts(value);
      if (typeof parts === "string") throw new Error("expected bytes beside the text");
      expect(JSON.parse(parts.text)).toEqual({
        body: { $cm: "bytes", i: 0 },
        small: { $cm: "bytes", v: Buffer.from(sized(BESIDE_MIN_BYTES - 1)).toString("base64") },
        raw: { $cm: "arraybuffer", i: 1 },
      });
      expect(parts.bytes.map((b) => b.byteLength)).toEqual([BESIDE_MIN_BYTES, 5_000]);
      expect(parts.byteCount).toBe(BESIDE_MIN_BYTES + 5_000);
      const back = decodeParts(parts.text, parts.bytes) as Record<string, unknown>;
      expect(back["body"]).toEqual(value.body);
      expect(back["small"]).toEqual(value.small);
      expect(new Uint8Array(back["raw"] as ArrayBuffer)).toEqual(sized(5_000));
      // Without binary values (or with small ones only) the text is the same as encodeValue's.
      expect(encodeParts({ a: 1, b: sized(3) })).toBe(encodeValue({ a: 1, b: sized(3) }));
    });
    it("copies a program's bytes, and sends a host view's own buffer only when asked", () => {
      const body = sized(4_096);
      const copied = encodeParts([body]) as Exclude<ReturnType<typeof encodeParts>, string>;
      expect(copied.bytes[0]).not.toBe(body.buffer);
      const own = encodeParts([body], Infinity, true) as typeof copied;
      expect(own.bytes[0]).toBe(body.buffer);
      // A view of part of its buffer sends a copy of its part, never the whole buffer.
      const part = encodeParts([body.subarray(1, 2_001)], Infinity, true) as typeof copied;
      expect(part.bytes[0]!.byteLength).toBe(2_000);
    });
    it("stops at the byte limit while encoding, copying nothing past it", () => {
      const parts = encodeParts([sized(3_000), sized(3_000), sized(3_000)], 7_000);
      if (typeof parts === "string") throw new Error("expected the encoding to stop");
      expect(parts).toMatchObject({ over: true, text: "", bytes: [] });
      expect(parts.byteCount).toBe(9_000);
    });
    it("stops a small view repeated before its text exists", () => {
      // Whole, this is ~14 MB of base64 text (each 1,023-byte view is 1,364 characters); a
      // million of them were 1.4 GB, made before the limit was checked.
      const view = sized(BESIDE_MIN_BYTES - 1);
      const many = Array.from({ length: 10_000 }, () => view);
      const toBase64 = vi.spyOn(String, "fromCharCode");
      try {
        const parts = encodeParts([many], 1_048_576);
        expect(parts).toMatchObject({ over: true, text: "" });
        // Each view's base64 is made from one call: no more views than fit the limit were made.
        expect(toBase64.mock.calls.length).toBeLessThanOrEqual(1_048_576 / 1_364 + 1);
      } finally {
        toBase64.mockRestore();
      }
    });
    it("stops one string repeated, or one object repeated, at the limit", () => {
      const text = "x".repeat(100_000);
      expect(encodeParts([Array.from({ length: 100 }, () => text)], 1_048_576)).toMatchObject({
        over: true,
      });
      const row = { a: text.slice(0, 1_000), b: [1, 2, 3] };
      expect(encodeParts([Array.from({ length: 10_000 }, () => row)], 1_048_576)).toMatchObject({
        over: true,
      });
      // Holes count as the nulls JSON writes for them.
      const holes: unknown[] = [];
      holes.length = 1_000_000;
      expect(encodeParts([holes], 1_048_576)).toMatchObject({ over: true });
      // Under the limit, the text is what it always was.
      const holed = [text.slice(0, 10), null, 0, 1];
      delete holed[2];
      expect(encodeParts([holed], 1_048_576)).toBe('[["xxxxxxxxxx",null,null,1]]');
    });
    it("reads a program's value once, through the engine's own iterators, defining what it makes", () => {
      const big = "y".repeat(1_000_000);
      // A getter answering small first and huge after: the plain-JSON path read it twice.
      let reads = 0;
      const flip = {
        get v() {
          reads++;
          return reads === 1 ? "small" : Array.from({ length: 10 }, () => big);
        },
      };
      expect(encodeParts([flip], 1_048_576)).toBe('[{"v":"small"}]');
      const map = new Map([["k", 1]]);
      const set = new Set([1]);
      const saved = {
        map: Array.prototype.map,
        mapIterator: Map.prototype[Symbol.iterator],
        setIterator: Set.prototype[Symbol.iterator],
      };
      const huge = () => Array.from({ length: 10 }, () => big);
      // A hostile program's replacements, put back below.
      /* oxlint-disable eslint/no-extend-native */
      try {
        Array.prototype.map = huge as never;
        Map.prototype[Symbol.iterator] = function* () {
          yield* huge().map((x) => [x, x]);
        } as never;
        Set.prototype[Symbol.iterator] = function* () {
          yield* huge();
        } as never;
        Object.defineProperty(Object.prototype, "forged", {
          set(this: Record<string, unknown>, _: unknown) {
            Object.defineProperty(this, "extra", { value: huge(), enumerable: true });
          },
          configurable: true,
        });
        const text = encodeParts([[1, 2], map, set, { forged: 1 }], 1_048_576);
        expect(text).toBe('[[1,2],{"$cm":"map","v":[["k",1]]},{"$cm":"set","v":[1]},{"forged":1}]');
      } finally {
        Array.prototype.map = saved.map;
        Map.prototype[Symbol.iterator] = saved.mapIterator;
        Set.prototype[Symbol.iterator] = saved.setIterator;
        delete (Object.prototype as Record<string, unknown>)["forged"];
      }
      /* oxlint-enable eslint/no-extend-native */
    });
    it("sees a setter on Array.prototype though the program emptied the arrays' iterator", () => {
      const big = "v".repeat(1_000_000);
      const savedIterator = Array.prototype[Symbol.iterator];
      let calls = 0;
      /* oxlint-disable eslint/no-extend-native */
      try {
        // A hostile program's: the check of the prototypes must not walk a list with this.
        Array.prototype[Symbol.iterator] = function* () {} as never;
        Object.defineProperty(Array.prototype, "0", {
          set(this: Record<string, unknown>, _: unknown) {
            calls++;
            Object.defineProperty(this, "extra", { value: [big, big], enumerable: true });
          },
          configurable: true,
        });
        expect(encodeParts([[1, 2]], 1_048_576)).toBe("[[1,2]]");
        expect(calls).toBe(0);
      } finally {
        Array.prototype[Symbol.iterator] = savedIterator;
        delete (Array.prototype as unknown as Record<string, unknown>)["0"];
      }
      /* oxlint-enable eslint/no-extend-native */
    });
    it("makes its tree again, defined, when a getter puts a setter up the prototype chain", () => {
      const big = "w".repeat(1_000_000);
      let installed = false;
      const value = {
        get first() {
          if (!installed) {
            installed = true;
            // oxlint-disable-next-line eslint/no-extend-native -- a hostile program's setter, removed below
            Object.defineProperty(Object.prototype, "second", {
              set(this: Record<string, unknown>, _: unknown) {
                Object.defineProperty(this, "extra", { value: [big, big], enumerable: true });
              },
              configurable: true,
            });
          }
          return 1;
        },
        second: 2,
      };
      try {
        expect(encodeParts([value], 1_048_576)).toBe('[{"first":1,"second":2}]');
      } finally {
        delete (Object.prototype as Record<string, unknown>)["second"];
      }
    });
    it("writes its tree without calling a program's toJSON on its prototypes", () => {
      const huge = () => Array.from({ length: 10 }, () => "z".repeat(1_000_000));
      const value = [[1, "a"], { a: 1, 'q"': [null, true] }, new Date(0)];
      const expected = encodeParts(value, 1_048_576);
      for (const prototype of [Array.prototype, Object.prototype]) {
        Object.defineProperty(prototype, "toJSON", { value: huge, configurable: true });
        try {
          expect(encodeParts(value, 1_048_576)).toBe(expected);
        } finally {
          delete (prototype as unknown as Record<string, unknown>)["toJSON"];
        }
      }
      expect(expected).toBe(
        '[[1,"a"],{"a":1,"q\\"":[null,true]},{"$cm":"date","v":"1970-01-01T00:00:00.000Z"}]',
      );
      // The host's own answers keep the plain-JSON path, prototypes untouched there.
      expect(encodeParts({ a: [1] }, Infinity, true)).toBe('{"a":[1]}');
    });
    it("decodes a tag naming no buffer, or one already taken, to itself", () => {
      const buffer = sized(2_000).buffer;
      const text = JSON.stringify([
        { $cm: "bytes", i: 0 },
        { $cm: "bytes", i: 0 },
        { $cm: "arraybuffer", i: 1 },
        { $cm: "bytes", i: 0.5 },
        { $cm: "bytes", i: "0" },
      ]);
      const [first, again, missing, half, named] = decodeParts(text, [buffer]) as unknown[];
      expect(first).toEqual(sized(2_000));
      expect(again).toEqual({ $cm: "bytes", i: 0 });
      expect(missing).toEqual({ $cm: "arraybuffer", i: 1 });
      expect(half).toEqual({ $cm: "bytes", i: 0.5 });
      expect(named).toEqual({ $cm: "bytes", i: "0" });
      // Without buffers (a run's result, text alone) an index tag is not binary data either.
      expect(decodeValue(JSON.stringify({ $cm: "bytes", i: 0 }))).toEqual({ $cm: "bytes", i: 0 });
    });
  });
});
