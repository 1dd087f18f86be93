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
    expect(life.begin()).toBe(true);
    expect(life.begin()).toBe(true);
    life.end();
    expect(life.headers()).toEqual({ [RUNS_BEGUN_HEADER]: "2", [RUNS_UNDER_WAY_HEADER]: "1" });
    life.retire();
    expect(life.begin()).toBe(false);
    expect(life.headers()).toEqual({
      [RUNS_BEGUN_HEADER]: "2",
      [RUNS_UNDER_WAY_HEADER]: "1",
      [RETIRING_HEADER]: "1",
    });
    life.end();
    expect(life.headers()[RUNS_UNDER_WAY_HEADER]).toBe("0");
  });

  it("names the headers the supervisor reads (cli/local-server/runner-retirement.mjs)", async () => {
    const { readFileSync } = await import("node:fs");
    const reader = readFileSync(
      new URL("../../../cli/local-server/runner-retirement.mjs", import.meta.url),
      "utf8",
    );
    for (const name of [RUNS_BEGUN_HEADER, RUNS_UNDER_WAY_HEADER, RETIRING_HEADER])
      expect(reader).toContain(`"${name}"`);
  });
});
