/**
 * The local server's own settings, read by the launcher before anything starts (cli/serve.mjs):
 * rows of the product's settings table (src/app/config/launcher-settings.ts, `LAUNCHER_SETTING_TABLE`).
 * Each takes its documented values, and anything else is refused with the setting's name and a
 * fix; the defaults the launcher's parts use are the table's.
 */
import { cpus } from "node:os";
import { describe, expect, it } from "vitest";
import { formatProblems } from "../../../src/app/config/config";
import {
  LAUNCHER_SETTING_TABLE,
  readLauncherSettings,
} from "../../../src/app/config/launcher-settings";
import { SETTING_TABLE } from "../../../src/app/config/setting-table";
import { DEFAULT_BODY_BUDGET_BYTES } from "../../../cli/local-server/front/body/budget.mjs";
import { DEFAULT_MAX_CONNECTIONS } from "../../../cli/local-server/front/connection-cap.mjs";
import { DEFAULT_MAX_RUNS } from "../../../cli/local-server/runners/runner-retirement.mjs";
import { defaultRunnerCount } from "../../../cli/local-server/worker-options.mjs";

/** The terminal text of the problems reading `env` gives (empty when none). */
const problemsOf = (env: Record<string, string>) =>
  formatProblems(readLauncherSettings(env).problems);

describe("the launcher's settings", () => {
  it("gives every unset (or blank) setting the table's default, which the launcher's parts use", () => {
    const unset = readLauncherSettings({});
    expect(unset.problems).toEqual([]);
    expect(unset.values).toEqual({
      PORT: 8787,
      PERSIST_TO: undefined,
      SPEC_FILE: undefined,
      SANDBOX_RUNNERS: undefined,
      SANDBOX_RUNNER_MAX_RUNS: DEFAULT_MAX_RUNS,
      LOG_REQUESTS: false,
      FRONT_BODY_BUDGET_MB: DEFAULT_BODY_BUDGET_BYTES / 1_048_576,
      FRONT_MAX_CONNECTIONS: DEFAULT_MAX_CONNECTIONS,
      HOST_STANDBY: false,
    });
    expect(readLauncherSettings({ PORT: " ", SANDBOX_RUNNERS: "" }).values).toMatchObject({
      PORT: 8787,
      SANDBOX_RUNNERS: undefined,
    });
    expect(defaultRunnerCount()).toBe(Math.max(1, Math.min(cpus().length, 4)) + 1);
    // One table for the Worker's settings and the launcher's, no name in both.
    for (const name of Object.keys(LAUNCHER_SETTING_TABLE))
      expect(Object.keys(SETTING_TABLE)).not.toContain(name);
  });

  it("PORT: 1 to 65535", () => {
    expect(readLauncherSettings({ PORT: " 9100 " }).values.PORT).toBe(9100);
    for (const bad of ["0", "65536", "http", "80.5"])
      expect(problemsOf({ PORT: bad })).toMatch(
        /^- PORT: ".*" is not a port number \(1 to 65535\)\.\n {2}Fix: PORT=8787 /,
      );
  });

  it("SANDBOX_RUNNERS: 0–16 when set", () => {
    expect(readLauncherSettings({ SANDBOX_RUNNERS: " 0 " }).values.SANDBOX_RUNNERS).toBe(0);
    expect(readLauncherSettings({ SANDBOX_RUNNERS: "16" }).values.SANDBOX_RUNNERS).toBe(16);
    for (const bad of ["17", "-1", "2.5", "two"])
      expect(problemsOf({ SANDBOX_RUNNERS: bad })).toMatch(
        /^- SANDBOX_RUNNERS: .* is not a whole number from 0 to 16\.\n {2}Fix: SANDBOX_RUNNERS=2 /s,
      );
  });

  it("SANDBOX_RUNNER_MAX_RUNS: 2,000 by default, 0 for never, whole numbers only", () => {
    expect(DEFAULT_MAX_RUNS).toBe(2_000);
    expect(readLauncherSettings({ SANDBOX_RUNNER_MAX_RUNS: "0" }).values).toMatchObject({
      SANDBOX_RUNNER_MAX_RUNS: 0,
    });
    expect(readLauncherSettings({ SANDBOX_RUNNER_MAX_RUNS: " 500 " }).values).toMatchObject({
      SANDBOX_RUNNER_MAX_RUNS: 500,
    });
    for (const bad of ["-5", "1e9", "10.5", "lots"])
      expect(problemsOf({ SANDBOX_RUNNER_MAX_RUNS: bad })).toMatch(
        /^- SANDBOX_RUNNER_MAX_RUNS: .*\n {2}Fix: SANDBOX_RUNNER_MAX_RUNS=2000 /s,
      );
  });

  it("LOG_REQUESTS: off unless switched on", () => {
    for (const off of ["0", "false", "No", "off"])
      expect(readLauncherSettings({ LOG_REQUESTS: off }).values.LOG_REQUESTS).toBe(false);
    for (const on of ["1", "true", "YES", " on "])
      expect(readLauncherSettings({ LOG_REQUESTS: on }).values.LOG_REQUESTS).toBe(true);
    expect(problemsOf({ LOG_REQUESTS: "sometimes" })).toMatch(
      /^- LOG_REQUESTS: LOG_REQUESTS must be on or off; got "sometimes"\.\n {2}Fix: LOG_REQUESTS=1 /,
    );
  });

  it("FRONT_BODY_BUDGET_MB: 64 MiB by default, whole MiB from 8 to 4096", () => {
    expect(DEFAULT_BODY_BUDGET_BYTES).toBe(64 * 1_048_576);
    expect(readLauncherSettings({ FRONT_BODY_BUDGET_MB: "128" }).values).toMatchObject({
      FRONT_BODY_BUDGET_MB: 128,
    });
    expect(readLauncherSettings({ FRONT_BODY_BUDGET_MB: "8" }).values).toMatchObject({
      FRONT_BODY_BUDGET_MB: 8,
    });
    for (const bad of ["7", "4097", "1.5", "-8", "64MB", "lots"])
      expect(problemsOf({ FRONT_BODY_BUDGET_MB: bad })).toMatch(
        /^- FRONT_BODY_BUDGET_MB: ".*" is not a whole number from 8 to 4096\.\n {2}Fix: FRONT_BODY_BUDGET_MB=64 /,
      );
  });

  it("FRONT_MAX_CONNECTIONS: 1,000 by default, whole numbers from 16 to 60000", () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBe(1_000);
    expect(readLauncherSettings({ FRONT_MAX_CONNECTIONS: " 64 " }).values).toMatchObject({
      FRONT_MAX_CONNECTIONS: 64,
    });
    for (const bad of ["15", "60001", "1.5", "many"])
      expect(problemsOf({ FRONT_MAX_CONNECTIONS: bad })).toMatch(
        /^- FRONT_MAX_CONNECTIONS: ".*" is not a whole number from 16 to 60000\.\n {2}Fix: FRONT_MAX_CONNECTIONS=1000 /,
      );
  });

  it("HOST_STANDBY: none by default, warm when asked, anything else refused with a fix", () => {
    for (const off of ["", "0", "off", "No", "cold"])
      expect(readLauncherSettings({ HOST_STANDBY: off }).values.HOST_STANDBY).toBe(false);
    for (const on of ["warm", " WARM ", "1", "true", "on"])
      expect(readLauncherSettings({ HOST_STANDBY: on }).values.HOST_STANDBY).toBe(true);
    expect(problemsOf({ HOST_STANDBY: "hot" })).toMatch(
      /^- HOST_STANDBY: "hot" is neither warm nor off\.\n {2}Fix: HOST_STANDBY=warm /,
    );
  });

  it("lists every problem at once, in the table's order", () => {
    const read = readLauncherSettings({ FRONT_BODY_BUDGET_MB: "1", PORT: "x", LOG_REQUESTS: "?" });
    expect(read.problems.map((p) => p.setting)).toEqual([
      "PORT",
      "LOG_REQUESTS",
      "FRONT_BODY_BUDGET_MB",
    ]);
  });
});
