/**
 * The local server's own settings, read by the launcher before anything starts (cli/serve.mjs):
 * `SANDBOX_RUNNERS`, `SANDBOX_RUNNER_MAX_RUNS` and `LOG_REQUESTS`. Each takes its documented
 * values, and anything else is refused with the setting's name and a fix.
 */
import { cpus } from "node:os";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RUNS, maxRunsSetting } from "../../../cli/local-server/runner-retirement.mjs";
import { logRequestsSetting, runnerCount } from "../../../cli/local-server/worker-options.mjs";

describe("the launcher's settings", () => {
  it("SANDBOX_RUNNERS: one per core (at most 4) plus one by default, 0–16 when set", () => {
    expect(runnerCount(undefined)).toEqual({
      ok: true,
      count: Math.max(1, Math.min(cpus().length, 4)) + 1,
    });
    expect(runnerCount(" 0 ")).toEqual({ ok: true, count: 0 });
    expect(runnerCount("16")).toEqual({ ok: true, count: 16 });
    for (const bad of ["17", "-1", "2.5", "two"])
      expect(runnerCount(bad)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^- SANDBOX_RUNNERS: .*\n {2}Fix: SANDBOX_RUNNERS=2/s),
      });
  });

  it("SANDBOX_RUNNER_MAX_RUNS: 2,000 by default, 0 for never, whole numbers only", () => {
    expect(DEFAULT_MAX_RUNS).toBe(2_000);
    expect(maxRunsSetting(undefined)).toEqual({ ok: true, runs: 2_000 });
    expect(maxRunsSetting("")).toEqual({ ok: true, runs: 2_000 });
    expect(maxRunsSetting("0")).toEqual({ ok: true, runs: 0 });
    expect(maxRunsSetting(" 500 ")).toEqual({ ok: true, runs: 500 });
    for (const bad of ["-5", "1e9", "10.5", "lots"])
      expect(maxRunsSetting(bad)).toMatchObject({
        ok: false,
        message: expect.stringMatching(
          /^- SANDBOX_RUNNER_MAX_RUNS: .*\n {2}Fix: SANDBOX_RUNNER_MAX_RUNS=2000 /s,
        ),
      });
  });

  it("LOG_REQUESTS: off unless switched on", () => {
    for (const off of [undefined, "", "0", "false", "No", "off"])
      expect(logRequestsSetting(off)).toEqual({ ok: true, on: false });
    for (const on of ["1", "true", "YES", " on "])
      expect(logRequestsSetting(on)).toEqual({ ok: true, on: true });
    expect(logRequestsSetting("sometimes")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^- LOG_REQUESTS: "sometimes" is not a switch\.\n {2}Fix: /),
    });
  });
});
