/**
 * The pieces of the engine's memory the template copies (sandbox/engine/zero-pages.ts): the same
 * pieces whether a native comparison or the loop looks, and the native one used where the
 * platform has it (a fresh runner's loop over 16 MB was half its engine load). Node has no
 * native comparison of its own here: the tests give one (node:crypto's).
 */
import { timingSafeEqual } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { heldPages, isZero, platformEqual } from "../../../../sandbox/engine/zero-pages";

const PAGE = 4096;

/** 10 pages and a short last one (100 bytes), with bytes set at page edges. */
function memory(): { bytes: Uint8Array; held: number[] } {
  const bytes = new Uint8Array(10 * PAGE + 100);
  bytes[0] = 1; // page 0, first byte
  bytes[3 * PAGE - 1] = 7; // page 2, last byte
  bytes[5 * PAGE + 1234] = 255; // page 5
  bytes[10 * PAGE + 99] = 3; // the short last page, last byte
  return { bytes, held: [0, 2 * PAGE, 5 * PAGE, 10 * PAGE] };
}

describe("heldPages", () => {
  it("finds exactly the pieces holding a nonzero byte, with the loop", () => {
    const { bytes, held } = memory();
    const pages = heldPages(bytes, PAGE, undefined);
    expect(pages.map((p) => p.offset)).toEqual(held);
    expect(pages[1]!.bytes[PAGE - 1]).toBe(7);
    expect(pages[3]!.bytes.length).toBe(100);
  });

  it("finds the same pieces with a native comparison, which looks at every full page", () => {
    const { bytes, held } = memory();
    let calls = 0;
    const equal = (a: Uint8Array, b: Uint8Array) => {
      calls++;
      return timingSafeEqual(a, b);
    };
    const pages = heldPages(bytes, PAGE, equal);
    expect(pages.map((p) => p.offset)).toEqual(held);
    expect(calls).toBe(10);
  });

  it("copies the pieces: later writes to the memory do not reach the copy", () => {
    const { bytes } = memory();
    const pages = heldPages(bytes, PAGE, undefined);
    bytes[0] = 9;
    expect(pages[0]!.bytes[0]).toBe(1);
  });
});

describe("isZero", () => {
  it("sees a nonzero byte past the last whole word", () => {
    const bytes = new Uint8Array(11);
    expect(isZero(bytes)).toBe(true);
    bytes[10] = 1;
    expect(isZero(bytes)).toBe(false);
  });
});

describe("platformEqual", () => {
  const subtle = crypto.subtle as unknown as Record<string, unknown>;
  // The unit project's files share one global scope (isolate: false), and another file gives
  // Node a timingSafeEqual for its own checks: each test starts without one and gives it back.
  let before: unknown;
  beforeEach(() => {
    before = subtle["timingSafeEqual"];
    delete subtle["timingSafeEqual"];
  });
  afterEach(() => {
    if (before === undefined) delete subtle["timingSafeEqual"];
    else subtle["timingSafeEqual"] = before;
  });

  it("is none where the platform has no native comparison (Node)", () => {
    expect(platformEqual()).toBeUndefined();
  });

  it("calls the platform's timingSafeEqual with its own `this` (workerd's)", () => {
    const seen: unknown[] = [];
    subtle["timingSafeEqual"] = function (this: unknown, a: Uint8Array, b: Uint8Array) {
      seen.push(this);
      return timingSafeEqual(a, b);
    };
    const equal = platformEqual();
    expect(equal?.(new Uint8Array(4), new Uint8Array(4))).toBe(true);
    expect(equal?.(new Uint8Array([0, 1]), new Uint8Array(2))).toBe(false);
    expect(seen).toEqual([crypto.subtle, crypto.subtle]);
  });
});
