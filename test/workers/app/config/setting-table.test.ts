// The settings table (src/app/setting-table.ts) and the rules between settings
// (src/app/config-rules.ts): one row per setting name, documented; unset means missing or blank;
// every rule relates settings of the table; problems are listed in the table's order.
import { describe, expect, it } from "vitest";
import configurationDoc from "../../../../docs/configuration.md?raw";
import { CONFIG_RULES } from "../../../../src/app/config/config-rules";
import { readConfig, SETTING_NAMES } from "../../../../src/app/config/config";
import { LAUNCHER_SETTING_TABLE } from "../../../../src/app/config/launcher-settings";
import {
  LIMIT_SETTINGS,
  readSettings,
  SETTING_TABLE,
} from "../../../../src/app/config/setting-table";
import type { Setting } from "../../../../src/app/config/setting-rows";
import { DEFAULT_LIMITS } from "../../../../src/executor/limits";

const SPECS = ["demo-api", "petstore"];

/** The rows of docs/configuration.md's settings table. */
const DOC_ROWS = configurationDoc.split("\n").filter((line) => line.startsWith("| `"));

/** The table row whose first cell names `name` (as `NAME` or `NAME=on`). */
function docRow(name: string): string | undefined {
  const named = new RegExp(`\`${name}(=[^\`]*)?\``);
  return DOC_ROWS.find((line) => named.test(line.split("|")[1] ?? ""));
}

/**
 * The ways the page may write a number: 1,000 or 1000 (a port, 8787); a byte count of a setting
 * named *_BYTES as 16 MiB.
 */
function written(n: number, bytes: boolean): string[] {
  if (bytes && n >= 1024)
    for (const [unit, size] of [
      ["GiB", 2 ** 30],
      ["MiB", 2 ** 20],
      ["KiB", 2 ** 10],
    ] as const)
      if (n % size === 0) return [`${n / size} ${unit}`];
  return [n.toLocaleString("en-US"), String(n)];
}

/** Whether `line` holds one of `texts`. */
const holdsOne = (line: string, texts: string[]) => texts.some((text) => line.includes(text));

describe("the settings table", () => {
  it("has one documented row per setting name, each named in docs/configuration.md", () => {
    expect(Object.keys(SETTING_TABLE).toSorted()).toEqual([...SETTING_NAMES].toSorted());
    for (const [name, row] of Object.entries(SETTING_TABLE)) {
      expect(row.doc.length, name).toBeGreaterThan(10);
      expect(docRow(name), name).toBeDefined();
    }
  });

  it("gives each number setting's default and range on its row of docs/configuration.md", () => {
    const rows: [string, Setting<unknown>][] = [
      ...Object.entries(SETTING_TABLE),
      ...Object.entries(LAUNCHER_SETTING_TABLE),
    ];
    let checked = 0;
    for (const [name, row] of rows) {
      const line = docRow(name) ?? "";
      const bytes = name.endsWith("_BYTES");
      if (typeof row.default === "number") {
        const defaults = written(row.default, bytes).map((n) => `default ${n}`);
        expect(holdsOne(line, defaults), `${name}: ${defaults[0]}`).toBe(true);
      }
      if (row.range) {
        const [mins, maxes] = row.range.map((n) => written(n, bytes));
        const ranges = mins!.flatMap((min) => maxes!.map((max) => `${min}–${max}`));
        if (row.range[0] === 1) ranges.push(...maxes!.map((max) => `at most ${max}`));
        expect(holdsOne(line, ranges), `${name}: ${ranges[0]}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
    // The LIMIT_* family, one row: each name followed by its default.
    for (const [name, key] of Object.entries(LIMIT_SETTINGS)) {
      const defaults = written(DEFAULT_LIMITS[key], name.endsWith("_BYTES"));
      expect(
        holdsOne(
          docRow(name) ?? "",
          defaults.map((n) => `\`${name}\` ${n}`),
        ),
        name,
      ).toBe(true);
    }
  });

  it("has the launcher's settings as rows too, each documented as a start (or deploy) setting", () => {
    const rows = Object.entries(LAUNCHER_SETTING_TABLE);
    expect(rows.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "PORT",
        "SANDBOX_RUNNERS",
        "SANDBOX_RUNNER_MAX_RUNS",
        "LOG_REQUESTS",
      ]),
    );
    // The table of docs/configuration.md: a row naming the setting and saying "(start only)", or
    // "(start and deploy)" for one the deploy command reads too (SKILLS_DIR).
    for (const [name, row] of rows) {
      expect(row.doc.length, name).toBeGreaterThan(10);
      const line = docRow(name);
      expect(line, name).toBeDefined();
      expect(line, name).toMatch(/\((start only|start and deploy)\)/);
    }
    // No launcher setting is passed to the Worker (they are not product settings).
    for (const name of Object.keys(LAUNCHER_SETTING_TABLE))
      expect(SETTING_NAMES as readonly string[]).not.toContain(name);
  });

  it("gives every unset setting its default; blank is unset, but a blank scheme means none", () => {
    const unset = readSettings({});
    expect(unset.given.size).toBe(0);
    expect(unset.problems).toEqual([]);
    for (const [name, row] of Object.entries(SETTING_TABLE))
      expect(unset.values[name as keyof typeof unset.values], name).toEqual(row.default);
    const blank = readSettings({ SPEC: "  ", API_AUTH_HEADER: "", RUNS: " " });
    expect(blank.values).toMatchObject({ SPEC: "demo-api", API_AUTH_HEADER: "Authorization" });
    expect([...blank.given]).toEqual([]);

    const noScheme = readConfig(
      { API_BASE_URL: "https://api.example", API_TOKEN: "plain-token-1", API_AUTH_SCHEME: "" },
      SPECS,
    );
    expect(noScheme.ok && noScheme.config.api).toMatchObject({
      credential: { header: "Authorization", value: "plain-token-1" },
      callerScheme: "",
    });
  });

  it("reads each kind of row: switch, URL, secret, whole number, executor", () => {
    const read = readSettings({
      OAUTH: " YES ",
      API_BASE_URL: "https://api.example/v1",
      RUNS_RETENTION_DAYS: "30",
      EXECUTOR: "Shared-Worker",
    });
    expect(read.values).toMatchObject({
      OAUTH: true,
      API_BASE_URL: "https://api.example/v1",
      RUNS_RETENTION_DAYS: 30,
      EXECUTOR: "shared-worker",
    });
    expect([...read.given].toSorted()).toEqual([
      "API_BASE_URL",
      "EXECUTOR",
      "OAUTH",
      "RUNS_RETENTION_DAYS",
    ]);
  });

  it("reads WITHHOLD_RESPONSE_BODIES as a list of operation ids, refusing what is not one", () => {
    const read = readConfig({ WITHHOLD_RESPONSE_BODIES: " echoHeaders, debug.request  x " }, SPECS);
    expect(read.ok && read.config.withheldOperations).toEqual([
      "echoHeaders",
      "debug.request",
      "x",
    ]);
    const unset = readConfig({}, SPECS);
    expect(unset.ok && unset.config.withheldOperations).toEqual([]);
    const bad = readConfig({ WITHHOLD_RESPONSE_BODIES: "echo,<script>" }, SPECS);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems[0]).toMatchObject({
      setting: "WITHHOLD_RESPONSE_BODIES",
      message: expect.stringContaining('"<script>" is not one'),
    });
  });

  it("lists every rule's settings from the table, and problems in the table's order", () => {
    for (const rule of CONFIG_RULES)
      for (const name of rule.settings) expect(Object.keys(SETTING_TABLE)).toContain(name);
    const checked = readConfig(
      {
        EXECUTOR: "fast",
        RUNS: "sometimes",
        LIMIT_TIMEOUT_MS: "soon",
        MCP_API_KEY: "short",
        SPEC: "nope",
        API_AUTH_HEADER: "Bad Header",
      },
      SPECS,
    );
    expect(!checked.ok && checked.problems.map((p) => p.setting)).toEqual([
      "SPEC",
      "MCP_API_KEY",
      "API_AUTH_HEADER",
      "LIMIT_TIMEOUT_MS",
      "RUNS",
      "EXECUTOR",
    ]);
  });

  it("warns, without refusing, where a setting is ignored", () => {
    const checked = readConfig({ API_TOKEN: "demo-token-1", UPSTREAM_MCP_AUTH: "x" }, SPECS);
    expect(checked.ok && checked.config.warnings).toEqual([
      "API_TOKEN / FORWARD_CALLER_TOKEN are ignored: /mcp serves the in-process demo API (set API_BASE_URL to use them).",
      "UPSTREAM_MCP_AUTH is ignored without UPSTREAM_MCP_URL.",
    ]);
  });
});
