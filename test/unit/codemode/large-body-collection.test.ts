// When the host collects its garbage around a large body's redaction (issue #40): decided here,
// with the collection injected (the real `gc` exists only in the local server's host).
import { describe, expect, it } from "vitest";
import {
  COLLECT_AFTER_BYTES,
  COLLECT_EVERY_PAUSES,
  collectAfterLargeBody,
  collectingPause,
} from "../../../src/codemode/request/large-body-collection";

/** A stand-in for V8's `gc`, recording the options of each call. */
function recordingGc(refuseOptions = false) {
  const calls: unknown[] = [];
  const gc = (options?: object) => {
    if (refuseOptions && options) throw new TypeError("options not supported");
    calls.push(options);
  };
  return { gc, calls };
}

describe("collection after a large body", () => {
  it("collects after a body of 1 MiB or more", () => {
    const { gc, calls } = recordingGc();
    expect(collectAfterLargeBody(COLLECT_AFTER_BYTES - 1, gc)).toBe(false);
    expect(calls).toEqual([]);
    expect(collectAfterLargeBody(COLLECT_AFTER_BYTES, gc)).toBe(true);
    expect(calls).toEqual([{ type: "major", execution: "sync" }]);
  });

  it("falls back to a plain collection where V8 refuses the options", () => {
    const { gc, calls } = recordingGc(true);
    expect(collectAfterLargeBody(4 * COLLECT_AFTER_BYTES, gc)).toBe(true);
    expect(calls).toEqual([undefined]);
  });

  it("does nothing where the runtime has no gc", () => {
    expect(collectAfterLargeBody(4 * COLLECT_AFTER_BYTES, undefined)).toBe(false);
  });
});

describe("the pause of a large body's sliced redaction", () => {
  const yieldThread = async () => {};

  it("is the plain pause for a small body or without gc", () => {
    const { gc } = recordingGc();
    expect(collectingPause(COLLECT_AFTER_BYTES - 1, yieldThread, gc)).toBe(yieldThread);
    expect(collectingPause(COLLECT_AFTER_BYTES, yieldThread, undefined)).toBe(yieldThread);
  });

  it("collects once every COLLECT_EVERY_PAUSES pauses, in one plain pass", async () => {
    const { gc, calls } = recordingGc();
    let yielded = 0;
    const pause = collectingPause(COLLECT_AFTER_BYTES, async () => void yielded++, gc);
    for (let i = 0; i < 3 * COLLECT_EVERY_PAUSES + 1; i++) await pause();
    expect(yielded).toBe(3 * COLLECT_EVERY_PAUSES + 1);
    expect(calls).toEqual(Array.from({ length: 3 }, () => ({ type: "major", execution: "sync" })));
  });
});
