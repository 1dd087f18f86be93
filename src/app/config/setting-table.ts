/**
 * The table of the product's settings: for each one, what it means, how its text is read and
 * checked, and its value when unset. `readSettings` reads them all (plus the `LIMIT_*` family);
 * what one setting means for another is the business of the rules (config-rules.ts), and
 * config.ts assembles the configuration from both.
 *
 * A setting is "unset" when missing or blank (spaces only); set, its text is trimmed. Secrets
 * are never part of a problem message.
 *
 * The local launcher's own settings (`npm start`, `code-mode-mcp serve`: the port, the runners,
 * the front's budget) are rows of the same kind in {@link LAUNCHER_SETTING_TABLE}, read by the
 * launcher with {@link readLauncherSettings} (through dist/cli/product.js; the Worker never sees
 * them). docs/configuration.md is tested against both tables.
 */
import { parseAllowedHostnames, DEFAULT_ALLOWED_HOSTNAMES } from "./allowed-hosts";
import { MIN_SECRET_LENGTH } from "../../codemode/redaction/redaction";
import { resolveLimits } from "../../executor/limits";
import { DEFAULT_EXECUTOR, parseExecutorSetting, type ExecutorKind } from "./executor-setting";
import type { ExecutorLimits } from "../../executor/types";
import { DEFAULT_RUN_SETTINGS } from "./run-settings";
import { DEFAULT_SKILL_LIMITS } from "../../codemode/skills/skill-limits";
import type { AppSettings, SettingName } from "./setting-names";

/** One bad setting: which, what is wrong, how to fix it. */
export interface ConfigProblem {
  setting: string;
  message: string;
  fix: string;
}

/** The spec `/mcp` serves when `SPEC` is not set. */
export const DEFAULT_SPEC = "demo-api";

/** Reports a problem with the setting being read (its name is added). */
type Report = (message: string, fix: string) => void;

/** One row of the table. */
export interface Setting<T> {
  /** What the setting is for, in a line (docs/configuration.md says more). */
  doc: string;
  /** Its value when unset. */
  default: T;
  /**
   * Reads the set text; a problem is reported (and the value then does not matter: the
   * configuration is refused).
   */
  parse: (text: string, report: Report) => T;
  /** Blank text counts as set (`API_AUTH_SCHEME=""` means no scheme). */
  keepBlank?: boolean;
}

const ON = ["on", "true", "1", "yes"];
const OFF = ["off", "false", "0", "no"];

/**
 * An on/off switch.
 * @param name - the setting
 * @param doc - what it is for
 * @param defaultOn - its value when unset
 * @param fix - the fix for a value that is neither
 */
function onOff(name: string, doc: string, defaultOn = false, fix?: string): Setting<boolean> {
  return {
    doc,
    default: defaultOn,
    parse: (text, report) => {
      const v = text.toLowerCase();
      if (ON.includes(v)) return true;
      if (!OFF.includes(v))
        report(
          `${name} must be on or off; got "${text}".`,
          fix ?? `Set ${name}=on or ${name}=off.`,
        );
      return false;
    },
  };
}

/** Any text, as given. */
function text(doc: string): Setting<string | undefined>;
function text(doc: string, fallback: string): Setting<string>;
function text(doc: string, fallback?: string): Setting<string | undefined> {
  return { doc, default: fallback, parse: (t) => t };
}

/**
 * A secret: at least `min` long (characters, or UTF-8 bytes), never echoed.
 * @param doc - what it is for
 * @param min - the shortest accepted
 * @param problem - the message and fix for a shorter one
 */
function secret(
  doc: string,
  min: { chars?: number; bytes?: number },
  problem: [message: string, fix: string],
): Setting<string | undefined> {
  return {
    doc,
    default: undefined,
    parse: (t, report) => {
      const short =
        (min.chars !== undefined && t.length < min.chars) ||
        (min.bytes !== undefined && new TextEncoder().encode(t).length < min.bytes);
      if (short) report(...problem);
      return t;
    },
  };
}

/** An http(s) URL, normalised (`URL.href`). */
function httpUrl(name: SettingName, doc: string): Setting<string | undefined> {
  return {
    doc,
    default: undefined,
    parse: (t, report) => {
      try {
        const url = new URL(t);
        if (url.protocol === "http:" || url.protocol === "https:") return url.href;
      } catch {
        // reported below
      }
      report(
        `${name} must be an http(s) URL; got "${t}".`,
        `Set ${name} to a full URL such as https://api.example.com.`,
      );
      return undefined;
    },
  };
}

/** A whole number from 1 to `max`. */
function wholeNumber(
  name: SettingName,
  doc: string,
  fallback: number,
  max: number,
): Setting<number> {
  return {
    doc,
    default: fallback,
    parse: (t, report) => {
      const n = Number(t);
      if (Number.isInteger(n) && n >= 1 && n <= max) return n;
      report(
        `${name} must be a whole number from 1 to ${max}; got "${t}".`,
        `Set ${name} to e.g. ${fallback}, or unset it for the default (${fallback}).`,
      );
      return fallback;
    },
  };
}

/** Every setting of {@link SettingName}, in the order problems are listed. */
export const SETTING_TABLE = {
  SPEC: text("the compiled spec /mcp serves (a file name in specs/)", DEFAULT_SPEC),
  OAUTH: onOff("OAUTH", "OAuth in front of the MCP routes"),
  FORWARD_CALLER_TOKEN: onOff(
    "FORWARD_CALLER_TOKEN",
    "send the MCP caller's own bearer token to the API (per-user credentials)",
  ),
  MCP_API_KEY: secret("the bearer token clients must send to this server", { chars: 16 }, [
    "MCP_API_KEY is shorter than 16 characters.",
    "Use a long random key, e.g. `openssl rand -hex 32`.",
  ]),
  ALLOW_ANONYMOUS: onOff(
    "ALLOW_ANONYMOUS",
    "serve MCP callers without MCP_API_KEY or OAuth on a deployed Worker (anonymous-guard.ts)",
  ),
  OAUTH_PASSWORD: text("the password the OAuth /authorize page asks for (OAUTH=on)"),
  OAUTH_REGISTRATIONS_PER_HOUR: wholeNumber(
    "OAUTH_REGISTRATIONS_PER_HOUR",
    "OAuth client registrations allowed per address per hour (oauth/registration-limiter.ts)",
    10,
    100_000,
  ),
  OAUTH_REGISTRATIONS_PER_DAY: wholeNumber(
    "OAUTH_REGISTRATIONS_PER_DAY",
    "OAuth client registrations allowed in total per day (oauth/registration-limiter.ts)",
    1000,
    1_000_000,
  ),
  ALLOWED_HOSTNAMES: {
    doc: "host names the Worker answers to (allowed-hosts.ts)",
    default: [...DEFAULT_ALLOWED_HOSTNAMES],
    parse: (t, report) => {
      const hosts = parseAllowedHostnames(t);
      if (hosts.ok) return hosts.hostnames;
      report(hosts.problem.message, hosts.problem.fix);
      return [];
    },
  } satisfies Setting<string[]>,
  API_BASE_URL: httpUrl(
    "API_BASE_URL",
    "where /mcp sends API requests (default: the spec's servers)",
  ),
  API_TOKEN: secret("the API's credential, sent as API_AUTH_HEADER", { chars: MIN_SECRET_LENGTH }, [
    `API_TOKEN is shorter than ${MIN_SECRET_LENGTH} characters: too short to redact safely from the API's responses (it would match ordinary text and JSON) and too short to be a real credential.`,
    `Set API_TOKEN to the API's full token (at least ${MIN_SECRET_LENGTH} characters), without the scheme (Bearer is added).`,
  ]),
  API_AUTH_HEADER: {
    doc: "the header carrying API_TOKEN",
    default: "Authorization",
    parse: (t, report) => {
      if (!/^[A-Za-z0-9-]+$/.test(t))
        report(
          `API_AUTH_HEADER must be an HTTP header name; got "${t}".`,
          "Set API_AUTH_HEADER=Authorization (default) or e.g. X-Api-Key.",
        );
      return t;
    },
  } satisfies Setting<string>,
  API_AUTH_SCHEME: {
    ...text("the scheme before API_TOKEN (default Bearer with Authorization, none otherwise)"),
    keepBlank: true,
  },
  UPSTREAM_MCP_URL: text("the MCP server(s) /mcp/code wraps: <url> or name=<url>,…"),
  UPSTREAM_MCP_AUTH: text("the upstream MCP servers' credential (one, or JSON per server name)"),
  UPSTREAM_MCP_AUTH_HEADER: text("the header carrying UPSTREAM_MCP_AUTH", "Authorization"),
  APPROVALS: onOff("APPROVALS", "ask the user before a write request or a tool call is sent"),
  WITHHOLD_RESPONSE_BODIES: {
    doc: "operation ids of /mcp's spec whose response bodies never reach the program",
    default: [],
    parse: (t, report) => {
      const ids = t.split(/[\s,]+/).filter((id) => id !== "");
      const odd = ids.filter((id) => !/^[\w.\-/:{}]+$/.test(id));
      if (odd.length > 0)
        report(
          `WITHHOLD_RESPONSE_BODIES must list operation ids; ${odd.map((id) => `"${id}"`).join(", ")} is not one.`,
          "List the spec's operationId values separated by commas, e.g. WITHHOLD_RESPONSE_BODIES=echoHeaders,debugRequest.",
        );
      return ids;
    },
  } satisfies Setting<string[]>,
  REQUEST_STATE_KEY: secret(
    "the key approvals are sealed with (needed across Cloudflare isolates)",
    { bytes: 32 },
    [
      "REQUEST_STATE_KEY must be at least 32 bytes.",
      "Use `openssl rand -hex 32` and store it as a secret.",
    ],
  ),
  RUNS: onOff(
    "RUNS",
    "record runs for the run history and console",
    DEFAULT_RUN_SETTINGS.enabled,
    "Set RUNS=on (record runs, the default) or RUNS=off.",
  ),
  RUNS_RETENTION_DAYS: wholeNumber(
    "RUNS_RETENTION_DAYS",
    "days a run record is kept",
    DEFAULT_RUN_SETTINGS.retentionDays,
    366,
  ),
  RUNS_RETENTION_COUNT: wholeNumber(
    "RUNS_RETENTION_COUNT",
    "run records kept per caller and day",
    DEFAULT_RUN_SETTINGS.retentionCount,
    100_000,
  ),
  RUNS_RETENTION_BYTES: wholeNumber(
    "RUNS_RETENTION_BYTES",
    "bytes of run records kept per caller and day",
    DEFAULT_RUN_SETTINGS.retentionBytes,
    2 ** 30,
  ),
  EXECUTOR: {
    doc: "which executor runs programs: isolate-per-run or shared-worker (docs/executor.md)",
    default: DEFAULT_EXECUTOR,
    parse: (t, report) => {
      const executor = parseExecutorSetting(t);
      if (executor.ok) return executor.kind;
      report(executor.message, executor.fix);
      return DEFAULT_EXECUTOR;
    },
  } satisfies Setting<ExecutorKind>,
  SKILLS: onOff(
    "SKILLS",
    "saved skills: programs save functions as skills.<name>() for later programs (docs/skills.md)",
    true,
    "Set SKILLS=on (the default) or SKILLS=off.",
  ),
  SKILLS_MAX_PER_PRINCIPAL: wholeNumber(
    "SKILLS_MAX_PER_PRINCIPAL",
    "skills one principal (OAuth user, API key, the open server) may keep",
    DEFAULT_SKILL_LIMITS.maxSkills,
    10_000,
  ),
  SKILLS_MAX_VERSIONS: wholeNumber(
    "SKILLS_MAX_VERSIONS",
    "versions kept per skill",
    DEFAULT_SKILL_LIMITS.maxVersions,
    1_000,
  ),
  SKILLS_MAX_CODE_CHARS: wholeNumber(
    "SKILLS_MAX_CODE_CHARS",
    "characters of one skill's code",
    DEFAULT_SKILL_LIMITS.maxCodeChars,
    1_000_000,
  ),
  SKILLS_MAX_DESCRIPTION_CHARS: wholeNumber(
    "SKILLS_MAX_DESCRIPTION_CHARS",
    "characters of one skill's description",
    DEFAULT_SKILL_LIMITS.maxDescriptionChars,
    100_000,
  ),
  SKILLS_MAX_SCHEMA_CHARS: wholeNumber(
    "SKILLS_MAX_SCHEMA_CHARS",
    "characters of one skill's input or output JSON Schema",
    DEFAULT_SKILL_LIMITS.maxSchemaChars,
    1_000_000,
  ),
} satisfies { [name in SettingName]: Setting<unknown> };

/** The value of each setting, as read by {@link readSettings}. */
export type SettingValues = {
  [name in SettingName]:
    | (typeof SETTING_TABLE)[name]["default"]
    | ReturnType<(typeof SETTING_TABLE)[name]["parse"]>;
};

/** Executor limits settable as `LIMIT_*` (setting name → limit key). */
export const LIMIT_SETTINGS: Readonly<Record<string, keyof ExecutorLimits>> = {
  LIMIT_TIMEOUT_MS: "timeoutMs",
  LIMIT_MAX_OPERATIONS: "maxOperations",
  LIMIT_MAX_HOST_CALLS: "maxHostCalls",
  LIMIT_MAX_RESULT_BYTES: "maxResultBytes",
  LIMIT_MAX_LOG_BYTES: "maxLogBytes",
  LIMIT_MAX_CALL_BYTES: "maxCallBytes",
  LIMIT_CPU_MS: "cpuMs",
};

/** What {@link readSettings} found. */
export interface ReadSettings {
  values: SettingValues;
  /** The settings that were set (not missing, not blank). */
  given: ReadonlySet<SettingName>;
  /** The executor limits set with `LIMIT_*`. */
  limits: Partial<ExecutorLimits>;
  problems: ConfigProblem[];
}

/**
 * Reads every setting of the table and the `LIMIT_*` family, each on its own.
 * @param settings - the Worker's env
 */
export function readSettings(settings: AppSettings): ReadSettings {
  const problems: ConfigProblem[] = [];
  const { values, given } = readTable(SETTING_TABLE, settings, problems);
  return {
    values: values as SettingValues,
    given: given as ReadonlySet<SettingName>,
    limits: readLimits(settings, problems),
    problems,
  };
}

/**
 * Reads each row of `table` from `settings`: a missing or blank one (unless `keepBlank`) takes
 * its default; a set one its trimmed text, parsed, problems added to `problems`.
 */
function readTable(
  table: Readonly<Record<string, Setting<unknown>>>,
  settings: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
): { values: Record<string, unknown>; given: Set<string> } {
  const given = new Set<string>();
  const values: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(table)) {
    const raw = settings[name];
    const set = typeof raw === "string" && (row.keepBlank || raw.trim() !== "");
    if (!set) {
      values[name] = row.default;
      continue;
    }
    given.add(name);
    values[name] = row.parse(row.keepBlank ? raw : raw.trim(), (message, fix) =>
      problems.push({ setting: name, message, fix }),
    );
  }
  return { values, given };
}

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
    parse: (t, report) => {
      const n = Number(t);
      if (/^\d+$/.test(t) && n >= min && n <= max) return n;
      report(`"${t}" is not a whole number from ${min} to ${max}.`, `${name}=${fix}`);
      return fallback;
    },
  };
}

/** `SANDBOX_RUNNER_MAX_RUNS` when unset (cli/local-server/runner-retirement.mjs says why). */
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

/**
 * Reads the `LIMIT_*` settings (any other `LIMIT_` name is a problem: a typo would otherwise
 * leave a limit at its default unnoticed).
 * @param settings - the Worker's env
 * @param problems - where problems are added
 */
function readLimits(settings: AppSettings, problems: ConfigProblem[]): Partial<ExecutorLimits> {
  const limits: Partial<ExecutorLimits> = {};
  for (const [name, raw] of Object.entries(settings)) {
    if (!name.startsWith("LIMIT_") || raw === undefined || String(raw).trim() === "") continue;
    const key = LIMIT_SETTINGS[name];
    if (!key) {
      problems.push({
        setting: name,
        message: `Unknown limit setting ${name}.`,
        fix: `Use one of ${Object.keys(LIMIT_SETTINGS).join(", ")}.`,
      });
      continue;
    }
    const n = Number(raw);
    try {
      resolveLimits({ [key]: n });
      limits[key] = n;
    } catch (error) {
      problems.push({
        setting: name,
        message: `${name}: ${(error as Error).message}`,
        fix: `Set ${name} to a positive integer.`,
      });
    }
  }
  return limits;
}
