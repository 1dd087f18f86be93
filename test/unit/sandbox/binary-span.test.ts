// A program's binary values as the codec reads them: by the engine's own accessors, so a getter,
// a Proxy or shared or detached memory cannot choose what crosses (sandbox/binary-span.ts).
import { describe, expect, it } from "vitest";
import { encodeParts, encodeValue } from "../../../sandbox/codec";
import { decodeParts, decodeValue } from "../../../sandbox/codec-decode";

/** The value as the host decodes it from what the sandbox sends. */
function crossed(value: unknown): unknown {
  const parts = encodeParts(value, 1_000_000);
  return typeof parts === "string" ? decodeValue(parts) : decodeParts(parts.text, parts.bytes);
}

const detached = (bytes: Uint8Array) => {
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  return bytes;
};

describe("binary values a program sends", () => {
  it.each([
    ["a Proxy of a Uint8Array", () => new Proxy(new Uint8Array([1, 2, 3]), {})],
    ["a Proxy of an ArrayBuffer", () => new Proxy(new ArrayBuffer(4), {})],
    ["an object made from Uint8Array.prototype", () => Object.create(Uint8Array.prototype)],
    ["an object made from DataView.prototype", () => Object.create(DataView.prototype)],
  ])("refuses %s with a clear TypeError (the bytes were the traps' before)", (_label, make) => {
    for (const large of [false, true]) {
      const value = make();
      const call = () => (large ? encodeParts([value], 1_000_000) : encodeValue([value]));
      expect(call).toThrow(TypeError);
      expect(call).toThrow(/looks like binary data but is not/);
    }
  });

  it.each([
    ["shared memory", () => new SharedArrayBuffer(8)],
    ["a view of shared memory", () => new Uint8Array(new SharedArrayBuffer(2_000))],
    ["a DataView of shared memory", () => new DataView(new SharedArrayBuffer(8))],
  ])("refuses %s (a SharedArrayBuffer crossed as {} before)", (_label, make) => {
    expect(() => encodeParts([make()], 1_000_000)).toThrow(/Shared memory .* cannot be sent/);
  });

  it.each([
    ["a detached view", () => detached(new Uint8Array(16))],
    ["a detached ArrayBuffer", () => detached(new Uint8Array(16)).buffer],
    ["a large detached view", () => detached(new Uint8Array(4_096))],
  ])("refuses %s (it crossed as empty bytes before)", (_label, make) => {
    expect(() => encodeParts([make()], 1_000_000)).toThrow(/detached ArrayBuffer/);
  });

  it("sends a view's own bytes whatever getters it or its prototype has", () => {
    for (const length of [4, 4_000]) {
      const bytes = new Uint8Array(length).map((_, i) => i & 255);
      for (const key of ["length", "byteLength", "byteOffset", "buffer"]) {
        Object.defineProperty(bytes, key, {
          get: () => (key === "buffer" ? new ArrayBuffer(9) : 3_000_000),
        });
      }
      const [back] = crossed([bytes]) as [Uint8Array];
      expect(back).toBeInstanceOf(Uint8Array);
      expect([...back]).toEqual([...new Uint8Array(length).map((_, i) => i & 255)]);
    }
  });

  it("sends exactly a view's bytes, a view of a view and other kinds of views included", () => {
    const big = new Uint8Array(3_000_000).map((_, i) => (i * 7) & 255);
    const view = new Uint8Array(big.buffer, 1_000_000, 5_000).subarray(100, 2_100);
    const parts = encodeParts(
      [view, new Int16Array(big.buffer, 20, 3), new DataView(big.buffer, 9, 2)],
      1_000_000,
    );
    expect(typeof parts).toBe("object");
    const { bytes, byteCount } = parts as Exclude<typeof parts, string>;
    // One buffer beside (the 2,000-byte view), of its length: not the 3 MB it looks into.
    expect(bytes.map((b) => b.byteLength)).toEqual([2_000]);
    expect(byteCount).toBe(2_000);
    const [a, b, c] = crossed([
      view,
      new Int16Array(big.buffer, 20, 3),
      new DataView(big.buffer, 9, 2),
    ]) as Uint8Array[];
    expect([...a!]).toEqual([...big.subarray(1_000_100, 1_002_100)]);
    expect([...b!]).toEqual([...big.subarray(20, 26)]);
    expect([...c!]).toEqual([...big.subarray(9, 11)]);
  });
});
