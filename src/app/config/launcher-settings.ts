/**
 * The local launcher's own settings (`npm start`, `code-mode-mcp serve`: the port, the runners,
 * the front's budget), rows of the same kind as the Worker's (setting-rows.ts), read by the
 * launcher with {@link readLauncherSettings} through dist/cli/product.js before anything starts.
 * The Worker never sees them. docs/configuration.md is tested against this table and the
 * Worker's (test/workers/app/config/setting-table.test.ts).
 */
import { onOff, readTable, text, type ConfigProblem, type Setting } from "./setting-rows";

/**
 * A whole number from `min` to `max`, its problem worded as the launcher words it.
 * @param name - the setting
 * @param doc - what it is for
 * @param fallback - its value when unset
 * @param range - the smallest and largest taken
 * @param fix - the fix, after "Set NAME=…"
 */
function launcherNumber<T extends number | undefined>(
  name: string,
  doc: string,
  fallback: T,
  [min, max]: [number, number],
  fix: string,
): Setting<number | T> {
  return {
    doc,
    default: fallback,
    range: [min, max],
    parse: (t, report) => {
      const n = Number(t);
      if (/^\d+$/.test(t) && n >= min && n <= max) return n;
      report(`"${t}" is not a whole number from ${min} to ${max}.`, `${name}=${fix}`);
      return fallback;
    },
  };
}

/** `SANDBOX_RUNNER_MAX_RUNS` when unset (cli/local-server/runners/runner-retirement.mjs says why). */
export const DEFAULT_RUNNER_MAX_RUNS = 2_000;
/** `FRONT_BODY_BUDGET_MB` when unset: 16 MCP bodies of the largest size. */
export const DEFAULT_FRONT_BODY_BUDGET_MB = 64;
/**
 * `FRONT_MAX_CONNECTIONS` when unset: far more than clients a local server serves, far fewer
 * than a process's usual open-files limit (cli/local-server/front/connection-cap.mjs).
 */
export const DEFAULT_FRONT_MAX_CONNECTIONS = 1_000;

/**
 * The local launcher's settings (`npm start`, `code-mode-mcp serve`), read from its environment
 * before anything starts; a problem stops the start with the setting's name and its fix. Only
 * the launcher reads them: they are not passed to the Worker.
 */
export const LAUNCHER_SETTING_TABLE = {
  PORT: {
    doc: "the local port the launcher serves on 127.0.0.1",
    default: 8787,
    range: [1, 65535],
    parse: (t, report) => {
      const n = Number(t);
      if (/^\d{1,5}$/.test(t) && n >= 1 && n <= 65535) return n;
      report(
        `"${t}" is not a port number (1 to 65535).`,
        "PORT=8787 (the code-mode-mcp command: --port 8787)",
      );
      return 8787;
    },
  } satisfies Setting<number>,
  PERSIST_TO: text(
    "the local data folder (npm start: .wrangler/state; the command: a temporary folder removed on exit)",
  ),
  SPEC_FILE: text(
    "an OpenAPI 2.0/3.0/3.1 file (JSON or YAML) the launcher validates and compiles, served at /mcp",
  ),
  SANDBOX_RUNNERS: launcherNumber(
    "SANDBOX_RUNNERS",
    "sandbox runner processes; unset: one per core (at most 4) plus one, counted by the launcher",
    undefined,
    [0, 16],
    "2 (runner processes for sandbox runs; 0 runs them inside the host runtime).",
  ),
  SANDBOX_RUNNER_MAX_RUNS: launcherNumber(
    "SANDBOX_RUNNER_MAX_RUNS",
    "runs after which a sandbox runner is replaced by a fresh process (0: never)",
    DEFAULT_RUNNER_MAX_RUNS,
    [0, 10_000_000],
    `${DEFAULT_RUNNER_MAX_RUNS} (runs after which a sandbox runner is replaced by a fresh process; 0 never).`,
  ),
  LOG_REQUESTS: onOff(
    "LOG_REQUESTS",
    "a line per request in the launcher's output (method, path, status, time)",
    false,
    "LOG_REQUESTS=1 (a line per request in the output) or leave it unset.",
  ),
  FRONT_BODY_BUDGET_MB: launcherNumber(
    "FRONT_BODY_BUDGET_MB",
    "MiB of request bodies the front holds at once (past it a request gets 503, asked to retry)",
    DEFAULT_FRONT_BODY_BUDGET_MB,
    [8, 4096],
    `${DEFAULT_FRONT_BODY_BUDGET_MB} (MiB of request bodies the server holds at once; past it a request gets 503 and is asked to retry).`,
  ),
  SKILLS_DIR: {
    doc: "a folder of read-only operator skills in the Agent Skills layout, read and checked at start (and bundled by deploy)",
    default: undefined,
    parse: (t) => t,
  } satisfies Setting<string | undefined>,
  HOST_STANDBY: {
    doc: "keep a warm second host runtime, so a replaced host is switched at once (~155 MB more)",
    default: false,
    parse: (t, report) => {
      const v = t.toLowerCase();
      if (["warm", "on", "1", "true", "yes"].includes(v)) return true;
      if (!["off", "cold", "0", "false", "no"].includes(v))
        report(
          `"${t}" is neither warm nor off.`,
          "HOST_STANDBY=warm (a second host runtime kept ready: a replaced host is switched at once, for ~155 MB more) or leave it unset.",
        );
      return false;
    },
  } satisfies Setting<boolean>,
  FRONT_MAX_CONNECTIONS: launcherNumber(
    "FRONT_MAX_CONNECTIONS",
    "connections the front keeps open at once (past it a request gets 503 at once, asked to retry)",
    DEFAULT_FRONT_MAX_CONNECTIONS,
    [16, 60_000],
    `${DEFAULT_FRONT_MAX_CONNECTIONS} (connections the server keeps open at once; past it a request gets 503 and is asked to retry).`,
  ),
} satisfies Record<string, Setting<unknown>>;

/** One of the launcher's settings. */
export type LauncherSettingName = keyof typeof LAUNCHER_SETTING_TABLE;

/** The value of each launcher setting, as read by {@link readLauncherSettings}. */
export type LauncherSettingValues = {
  [name in LauncherSettingName]:
    | (typeof LAUNCHER_SETTING_TABLE)[name]["default"]
    | ReturnType<(typeof LAUNCHER_SETTING_TABLE)[name]["parse"]>;
};

/**
 * Reads the launcher's settings from its environment, each on its own, problems in the table's
 * order (`formatProblems` words them for the terminal).
 * @param env - the launcher's environment
 */
export function readLauncherSettings(env: Readonly<Record<string, string | undefined>>): {
  values: LauncherSettingValues;
  problems: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const { values } = readTable(LAUNCHER_SETTING_TABLE, env, problems);
  return { values: values as LauncherSettingValues, problems };
}
