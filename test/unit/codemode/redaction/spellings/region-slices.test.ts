// The pass over tokens that finds where lists may be (lists-view.ts's candidateRegions) pauses
// within a token too (issue #40): it paused per token, and a body that is one word (4 MB of
// base64 with no line break) was one token, scanned between two pauses. Counted in positions
// between pauses (listWork.regionPositions), never timed.
import { describe, expect, it } from "vitest";
import { PAUSE, SLICE_POSITIONS } from "../../../../../src/codemode/redaction/slices";
import {
  listsViewInSlices,
  listWork,
} from "../../../../../src/codemode/redaction/spellings/lists-view";

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const SIZE = 2_097_152;

describe("the lists view's candidate regions", () => {
  it.each([
    ["one word of base64", btoa(fill("Lorem ipsum dolor sit amet. ", (SIZE * 3) / 4))],
    ["a run of bits", fill("01100001", SIZE)],
    ["a list of numbers in a long separator run", `12 34 56 78${" ".repeat(SIZE)}90`],
  ])("are found in slices: %s", (_, text) => {
    const pass = listsViewInSlices({ text, origin: null });
    let [since, most] = [listWork.regionPositions, 0];
    const start = since;
    let step = pass.next();
    for (; !step.done; step = pass.next()) {
      expect(step.value).toBe(PAUSE);
      most = Math.max(most, listWork.regionPositions - since);
      since = listWork.regionPositions;
    }
    most = Math.max(most, listWork.regionPositions - since);
    expect(listWork.regionPositions - start).toBeGreaterThanOrEqual(text.length - 16);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(SLICE_POSITIONS + 64);
  });
});
