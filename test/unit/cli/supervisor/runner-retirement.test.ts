/**
 * Which sandbox runner the supervisor retires next (cli/local-server/runners/runner-retirement.mjs):
 * each slot's first runner comes due at its share of the runs, the most overdue goes first, one
 * found retiring unasked goes before all, and the log's wording says whether the supervisor asked.
 */
import { describe, expect, it } from "vitest";
import {
  countsOf,
  nextRetirement,
  retirementDue,
} from "../../../../cli/local-server/runners/runner-retirement.mjs";

const counts = (begun: number, retiring = false) => ({ begun, retiring });

describe("runner retirement", () => {
  it("retirements are spread: each slot's first runner comes due at its share of the runs", () => {
    // 3 runners serving equal shares: one retires every 667 runs of each, not all at 2,000.
    expect([1, 2, 3].map((slot) => retirementDue(2_000, slot, 3, true))).toEqual([
      667, 1_333, 2_000,
    ]);
    expect([1, 2, 3].map((slot) => retirementDue(2_000, slot, 3, false))).toEqual([
      2_000, 2_000, 2_000,
    ]);
    // Never with 0, nor with a single runner (runs would have no runner meanwhile).
    expect(retirementDue(0, 1, 3, true)).toBe(Infinity);
    expect(retirementDue(2_000, 1, 1, true)).toBe(Infinity);
    expect(retirementDue(1, 1, 4, true)).toBe(1);
  });

  it("none is chosen before its due count, nor without counts", () => {
    expect(
      nextRetirement(
        [
          { index: 1, retired: 0, counts: counts(666) },
          { index: 2, retired: 0, counts: null },
          { index: 3, retired: 1, counts: counts(1_999) },
        ],
        2_000,
        3,
      ),
    ).toBeUndefined();
    expect(nextRetirement([], 2_000, 3)).toBeUndefined();
  });

  it("the most overdue goes first, whatever its slot", () => {
    // Slot 1 is 1 past its due 667; slot 3 (a later runner, due at 2,000) is 300 past.
    const chosen = nextRetirement(
      [
        { index: 1, retired: 0, counts: counts(668) },
        { index: 2, retired: 0, counts: counts(1_000) },
        { index: 3, retired: 2, counts: counts(2_300) },
      ],
      2_000,
      3,
    );
    expect(chosen).toMatchObject({ candidate: { index: 3 }, begun: 2_300, unasked: false });
  });

  it("a runner retiring unasked goes before all, worded as unasked", () => {
    const chosen = nextRetirement(
      [
        { index: 1, retired: 0, counts: counts(5_000) },
        { index: 2, retired: 0, counts: counts(12, true) },
      ],
      2_000,
      3,
    );
    expect(chosen).toMatchObject({ candidate: { index: 2 }, begun: 12, unasked: true });
  });

  it("with one runner, only one retiring unasked is replaced (else runs would have none)", () => {
    expect(nextRetirement([{ index: 1, retired: 0, counts: counts(9_999) }], 2_000, 1)).toBe(
      undefined,
    );
    expect(
      nextRetirement([{ index: 1, retired: 0, counts: counts(40, true) }], 2_000, 1),
    ).toMatchObject({ candidate: { index: 1 }, begun: 40, unasked: true });
    // Never retiring by count with 0, but a retiring runner is still replaced.
    expect(nextRetirement([{ index: 1, retired: 0, counts: counts(9_999) }], 0, 3)).toBe(undefined);
    expect(nextRetirement([{ index: 2, retired: 0, counts: counts(7, true) }], 0, 3)).toMatchObject(
      { candidate: { index: 2 }, unasked: true },
    );
  });

  it("a runner's counts come from its /health headers, and none from an older runner", () => {
    expect(
      countsOf({ "x-runs-begun": "12", "x-runs-under-way": "2", "x-runner-retiring": "1" }),
    ).toEqual({ begun: 12, underWay: 2, retiring: true });
    expect(countsOf({ "x-runs-begun": "3", "x-runs-under-way": "0" })).toEqual({
      begun: 3,
      underWay: 0,
      retiring: false,
    });
    expect(countsOf({})).toBeNull();
    expect(countsOf(undefined)).toBeNull();
    expect(countsOf({ "x-runs-begun": "many", "x-runs-under-way": "0" })).toBeNull();
  });
});
