/**
 * `node bench/run.mjs --only …` (bench/driver/only-args.mjs): which rows run alone, and how many
 * rounds each gets. S (search by spec) runs alone too, at the full run's 5 rounds unless told.
 */
import { describe, expect, it } from "vitest";
import { codeOnlyArgs } from "../../../bench/driver/only-args.mjs";

describe("bench --only", () => {
  it("is off without --only", () => {
    expect(codeOnlyArgs(["--quick"])).toBeUndefined();
  });

  it("runs S alone at the full run's 5 rounds, P7 at 60", () => {
    expect(codeOnlyArgs(["--only", "s"])).toEqual({
      only: ["s"],
      reps: 60,
      searchReps: 5,
      warmUp: 5,
    });
    expect(codeOnlyArgs(["--only", "P7,s", "--reps", "3"])).toMatchObject({
      only: ["p7", "s"],
      reps: 3,
      searchReps: 3,
    });
  });

  it("names what it takes for an unknown phase or a bad count", () => {
    expect(() => codeOnlyArgs(["--only", "s,p9"])).toThrow(/--only takes p7, p8, s .*got "s,p9"/);
    expect(() => codeOnlyArgs(["--only", "s", "--reps", "two"])).toThrow(
      /--reps takes a whole number \(got "two"\)/,
    );
  });
});
