// The compact view in slices (issue #40): the compact view of ASCII text was made in one pass
// between two pauses (4 MB of `abc ` held the host thread 22-29 ms on a lightly loaded core,
// several times that at load), the folded one already paused. Counted in positions between
// pauses (compactWork), never timed.
import { describe, expect, it } from "vitest";
import { PAUSE, runToEnd, SLICE_POSITIONS } from "../../../../../src/codemode/redaction/slices";
import {
  compactView,
  compactViewInSlices,
  compactWork,
} from "../../../../../src/codemode/redaction/spellings/compact-view";
import { originalRange } from "../../../../../src/codemode/redaction/decoding/decoded-views";
import { SequenceMap } from "../../../../../src/codemode/redaction/sequence-map";
import type { View } from "../../../../../src/codemode/redaction/view-builder";

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const SIZE = 2_097_152;

/** Runs a pass, and the most positions it looked at between two pauses. */
function drive(pass: Generator<typeof PAUSE, View | undefined, void>) {
  let [since, most] = [compactWork.positions, 0];
  const start = since;
  let step = pass.next();
  for (; !step.done; step = pass.next()) {
    expect(step.value).toBe(PAUSE);
    most = Math.max(most, compactWork.positions - since);
    since = compactWork.positions;
  }
  most = Math.max(most, compactWork.positions - since);
  return { view: step.value, most, total: compactWork.positions - start };
}

describe("the compact view of a large text", () => {
  it.each([
    ["ASCII words", fill("abc ", SIZE), fill("abc", (SIZE * 3) / 4)],
    ["ASCII, spaces in one run", `x${" ".repeat(SIZE)}y\n\tz`, "xyz"],
    ["full-width letters", fill("\uff41\uff42 ", SIZE), fill("ab", SIZE / 1.5)],
  ])("is made in slices: %s", (_, text, compact) => {
    const { view, most, total } = drive(compactViewInSlices({ text, origin: null }));
    expect(view?.text === compact).toBe(true);
    expect(total).toBeGreaterThanOrEqual(text.length - 4);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(SLICE_POSITIONS);
  });

  it("maps a copy in the compact view of ASCII text back to where its letters are", () => {
    const text = `${fill("ab ", 100_000)}s e\tc\n r e t${fill(" cd", 100_000)}`;
    const view = compactView({ text, origin: null })!;
    const at = view.text.indexOf("secret");
    expect(view.text).toBe(runToEnd(compactViewInSlices({ text, origin: null }))!.text);
    const [start, end] = originalRange(view, at, at + 6);
    expect(text.slice(start, end)).toBe("s e\tc\n r e t");
  });
});

// A character that folds to one other where it stands (`ª` → `a`) is replaced by its code from
// a table after its first fold: a flood of escapes decodes to `ª` by the million, each looked up
// by string and replaced by a string (a tenth of its redaction, issue #40).
describe("single-character folds", () => {
  it("look a character up by string once, and make the view the lookups made", () => {
    const text = fill("%A\xaa%\xba\u00b2\uff41\u3000\u2126x", 300_000);
    const before = compactWork.slowFolds;
    const view = compactView({ text, origin: null })!;
    expect(compactWork.slowFolds - before).toBeLessThan(16);
    expect(view.text.slice(0, 18)).toBe("%Aa%o2aΩx%Aa%o2aΩx");
    const at = view.text.indexOf("o2a", 9);
    expect(originalRange(view, at, at + 3)).toEqual([14, 17]);
  });
});

// The compact view of ASCII text makes its map only when a copy is found in it, in one loop over
// codes (a match object per whitespace run was 40 ms of one go for 4 MB of `abc `).
describe("the map of the compact view of ASCII text", () => {
  it("is the map a match per whitespace run made", () => {
    const text = "  a b\t\tc\r\n d  e\u000bf\u000c g  ";
    const view = compactView({ text, origin: null })!;
    const before = compactWork.mapBuilds;
    const reference = new SequenceMap();
    let [kept, last] = [0, 0];
    for (const run of text.matchAll(/[\t-\r ]+/g)) {
      kept += run.index - last;
      reference.add(kept, 0, run[0].length);
      last = run.index + run[0].length;
    }
    const origin = reference.origin();
    for (let i = 0; i <= view.text.length; i++)
      for (const end of [false, true]) expect(view.origin!(i, end)).toBe(origin(i, end));
    expect(compactWork.mapBuilds - before).toBe(1);
  });
});
