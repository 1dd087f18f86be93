// RunnerLife (src/executor/runners/runner-life.ts): a runner's counts of runs begun and under way
// as its /health headers carry them, and its retiring mark: once retiring, it begins no run, and
// says so to whoever reads /health (the supervisor replaces a runner retiring unasked).
import { describe, expect, it } from "vitest";
import {
  RETIRING_HEADER,
  RUNS_BEGUN_HEADER,
  RUNS_UNDER_WAY_HEADER,
  RunnerLife,
} from "../../../src/executor/runners/runner-life";

describe("RunnerLife", () => {
  it("counts runs begun and under way, and begins none once retiring", () => {
    const life = new RunnerLife();
    expect(life.headers()).toEqual({ [RUNS_BEGUN_HEADER]: "0", [RUNS_UNDER_WAY_HEADER]: "0" });
    const first = life.begin();
    const second = life.begin();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    first!.end();
    // Ending twice counts once.
    first!.end();
    expect(life.headers()).toEqual({ [RUNS_BEGUN_HEADER]: "2", [RUNS_UNDER_WAY_HEADER]: "1" });
    life.retire();
    expect(life.begin()).toBeUndefined();
    expect(life.headers()).toEqual({
      [RUNS_BEGUN_HEADER]: "2",
      [RUNS_UNDER_WAY_HEADER]: "1",
      [RETIRING_HEADER]: "1",
    });
    second!.end();
    expect(life.headers()[RUNS_UNDER_WAY_HEADER]).toBe("0");
  });

  it("stops counting a run at its deadline even if its end never comes (a cancelled call)", () => {
    let now = 1_000;
    const life = new RunnerLife(() => now);
    // Before the fix a run whose call the host cancelled stayed counted for good: workerd never
    // resumed the code that would have ended it.
    life.begin(6_000);
    const ended = life.begin(10_000)!;
    life.begin();
    expect(life.underWay()).toBe(3);
    now += 5_999;
    expect(life.underWay()).toBe(3);
    now += 1;
    expect(life.underWay()).toBe(2);
    ended.end();
    now += 60_000;
    // The one begun without a deadline counts until it is ended.
    expect(life.headers()).toEqual({ [RUNS_BEGUN_HEADER]: "3", [RUNS_UNDER_WAY_HEADER]: "1" });
  });

  it("names the headers the supervisor reads (cli/local-server/runners/runner-retirement.mjs)", async () => {
    const { readFileSync } = await import("node:fs");
    const reader = readFileSync(
      new URL("../../../cli/local-server/runners/runner-retirement.mjs", import.meta.url),
      "utf8",
    );
    for (const name of [RUNS_BEGUN_HEADER, RUNS_UNDER_WAY_HEADER, RETIRING_HEADER])
      expect(reader).toContain(`"${name}"`);
  });
});
