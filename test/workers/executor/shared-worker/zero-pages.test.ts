/**
 * The native comparison the shared worker's template uses in workerd (sandbox/engine/zero-pages.ts,
 * `crypto.subtle.timingSafeEqual`): there, it compares the bytes a view shows (a page of the
 * engine's memory is a view at an offset of one large buffer), and the pages it finds are the
 * loop's. A comparison that read from the buffer's start would copy the wrong pages.
 */
import { describe, expect, it } from "vitest";
import { heldPages, platformEqual } from "../../../../sandbox/engine/zero-pages";

const PAGE = 4096;

describe("the template's native page comparison, in workerd", () => {
  it("is there, and compares the bytes of views at an offset", () => {
    const equal = platformEqual();
    expect(equal).toBeTypeOf("function");
    const buffer = new Uint8Array(3 * PAGE);
    buffer[0] = 1;
    const zeros = new Uint8Array(PAGE);
    expect(equal!(buffer.subarray(PAGE, 2 * PAGE), zeros)).toBe(true);
    expect(equal!(buffer.subarray(0, PAGE), zeros)).toBe(false);
    buffer[2 * PAGE + 5] = 1;
    expect(equal!(buffer.subarray(2 * PAGE, 3 * PAGE), zeros)).toBe(false);
  });

  it("finds the pages the loop finds", () => {
    const memory = new Uint8Array(64 * PAGE);
    for (const at of [0, 5 * PAGE - 1, 17 * PAGE + 300, 63 * PAGE]) memory[at] = 1;
    const native = heldPages(memory, PAGE).map((p) => p.offset);
    expect(native).toEqual([0, 4 * PAGE, 17 * PAGE, 63 * PAGE]);
    expect(native).toEqual(heldPages(memory, PAGE, undefined).map((p) => p.offset));
  });
});
