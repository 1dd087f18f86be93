// The finds of a search put in order and merged in slices (issue #40): the same ranges the
// search cut before (every pair as a tuple, sorted and merged at once), whatever the pairs: empty,
// touching, identical, overlapping runs folded as they are added, more than a chunk or a run.
import { describe, expect, it } from "vitest";
import {
  FoundPairs,
  mergedRanges,
  mergeTuples,
  rangeWork,
  RUN,
} from "../../../../src/codemode/redaction/search/found-ranges";
import {
  PAUSE,
  runToEnd,
  SLICE_POSITIONS,
  sliceBudget,
} from "../../../../src/codemode/redaction/slices";

/** A seeded generator: the same pairs on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Pairs as a search adds them: runs of overlapping finds in order, some out of order. */
function pairs(seed: number, count: number, limit: number): [number, number][] {
  const next = random(seed);
  const out: [number, number][] = [];
  let at = 0;
  while (out.length < count) {
    const kind = next();
    if (kind < 0.4) {
      // A run of overlapping finds, as a view spells a copy at every position.
      const length = 1 + Math.floor(next() * 20);
      for (let k = 0, start = at; k < 1 + next() * 30 && out.length < count; k++) {
        out.push([start, Math.min(limit, start + length)]);
        start += Math.floor(next() * (length + 1));
      }
    } else if (kind < 0.55) out.push([at, at]);
    else if (kind < 0.7 && out.length > 0) out.push([...out[Math.floor(next() * out.length)]!]);
    else {
      const start = Math.floor(next() * limit);
      out.push([start, Math.min(limit, start + Math.floor(next() * 30))]);
    }
    at = Math.min(limit - 1, at + Math.floor(next() * 25));
  }
  return out;
}

const merged = (list: [number, number][], limit: number) => {
  const found = new FoundPairs();
  for (const [start, end] of list) found.add(start, end);
  return runToEnd(mergedRanges(found, limit, sliceBudget()));
};

describe("found ranges", () => {
  it.each([
    [1, 0],
    [2, 1],
    [3, 2],
    [4, 50],
    [5, 3000],
    [6, 20_000],
    [7, 40_000],
  ])("merges as the tuples were merged (seed %i, %i pairs)", (seed, count) => {
    const limit = 1 + count * 10;
    const list = pairs(seed, count, limit);
    expect(merged(list, limit)).toEqual(mergeTuples(list.map(([s, e]) => [s, e])));
  });

  it("keeps empty and touching ranges apart, as the merge does", () => {
    const list: [number, number][] = [
      [5, 5],
      [5, 5],
      [0, 5],
      [9, 9],
      [7, 9],
      [2, 3],
    ];
    expect(merged(list, 10)).toEqual([0, 5, 5, 5, 5, 5, 7, 9, 9, 9]);
    expect(merged(list, 10)).toEqual(mergeTuples(list.map(([s, e]) => [s, e])));
  });

  it("folds a run of overlapping finds into one pair as they are added", () => {
    const found = new FoundPairs();
    for (let start = 0; start < 100_000; start++) found.add(start, start + 12);
    expect(found.count).toBe(1);
    expect(runToEnd(mergedRanges(found, 100_011, sliceBudget()))).toEqual([0, 100_011]);
  });

  it("sorts and merges many pairs in slices", () => {
    // Scattered finds (none folded): one per copy of a body full of them.
    const next = random(9);
    const list = Array.from({ length: 200_000 }, (): [number, number] => {
      const start = Math.floor(next() * 2_000_000);
      return [start, start + 1 + Math.floor(next() * 40)];
    });
    const found = new FoundPairs();
    for (const [start, end] of list) found.add(start, end);
    const pass = mergedRanges(found, 2_000_000, sliceBudget());
    let [pauses, last, most] = [0, rangeWork.positions, 0];
    let step = pass.next();
    for (; !step.done; step = pass.next()) {
      expect(step.value).toBe(PAUSE);
      most = Math.max(most, rangeWork.positions - last);
      last = rangeWork.positions;
      pauses++;
    }
    expect(step.value).toEqual(mergeTuples(list.map(([s, e]) => [s, e])));
    expect(pauses).toBeGreaterThan(4);
    expect(most).toBeLessThanOrEqual(SLICE_POSITIONS + RUN);
  });
});
