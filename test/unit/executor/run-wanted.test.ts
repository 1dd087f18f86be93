/**
 * What a runner makes of the host's word about a run (src/executor/runners/run-wanted.ts): before
 * the run begins, a host that cannot answer counts as yes; while it goes on, as no (issue #40: a
 * gone client's host request is cancelled, and the runner's asking then fails with "Network
 * connection lost.", which kept the run going until its timeout).
 */
import { describe, expect, it } from "vitest";
import { announce, stillWanted } from "../../../src/executor/runners/run-wanted";

/** A host stub whose `wanted` fails as workerd's does once the host's request is gone. */
const goneHost = {
  begin: () => Promise.reject(new Error("Network connection lost.")),
  wanted: () => Promise.reject(new Error("Network connection lost.")),
};

describe("stillWanted", () => {
  it("is yes while the host says yes, and no once it says no", async () => {
    expect(await stillWanted({ wanted: () => true })).toBe(true);
    expect(await stillWanted({ wanted: async () => true })).toBe(true);
    expect(await stillWanted({ wanted: () => false })).toBe(false);
  });

  it("is no when the host cannot answer: its side of the run is gone", async () => {
    expect(await stillWanted(goneHost)).toBe(false);
    expect(
      await stillWanted({
        wanted: () => {
          throw new Error("Network connection lost.");
        },
      }),
    ).toBe(false);
  });
});

describe("announce", () => {
  it("begins a run unless the host says no; a host that cannot answer counts as yes", async () => {
    expect(await announce({ begin: () => true })).toBe(true);
    expect(await announce({ begin: () => false })).toBe(false);
    expect(await announce(goneHost)).toBe(true);
  });
});
