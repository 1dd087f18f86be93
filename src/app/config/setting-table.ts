/**
 * The table of the product's settings: for each one, what it means, how its text is read and
 * checked, and its value when unset. `readSettings` reads them all (plus the `LIMIT_*` family);
 * what one setting means for another is the business of the rules (config-rules.ts), and
 * config.ts assembles the configuration from both.
 *
 * A setting is "unset" when missing or blank (spaces only); set, its text is trimmed. Secrets
 * are never part of a problem message.
 *
 * The rows' kinds and the reader live in setting-rows.ts; the local launcher's own settings
 * (`npm start`) are a table of their own in launcher-settings.ts. docs/configuration.md is tested
 * against both tables.
 */
import { parseAllowedHostnames, DEFAULT_ALLOWED_HOSTNAMES } from "./allowed-hosts";
import { MIN_SECRET_LENGTH } from "../../codemode/redaction/redaction";
import { resolveLimits } from "../../executor/limits";
import { DEFAULT_EXECUTOR, parseExecutorSetting, type ExecutorKind } from "./executor-setting";
import type { ExecutorLimits } from "../../executor/types";
import { DEFAULT_RUN_SETTINGS } from "./run-settings";
import { DEFAULT_SKILL_LIMITS } from "../../codemode/skills/skill-limits";
import {
  MAX_RESPONSE_BYTES,
  MAX_RESPONSE_BYTES_CEILING,
  MAX_RESPONSE_BYTES_PER_RUN,
  MAX_RESPONSE_BYTES_PER_RUN_CEILING,
} from "../../codemode/request/response-budget";
import type { AppSettings, SettingName } from "./setting-names";
import { onOff, readTable, text, type ConfigProblem, type Setting } from "./setting-rows";

/** The spec `/mcp` serves when `SPEC` is not set. */
export const DEFAULT_SPEC = "demo-api";

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
    range: [1, max],
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

/**
 * `SKILLS_MAX_TOKEN_OWNERS` when unset: forwarded tokens that may keep skills
 * (src/app/skills/token-owners.ts says why they are bounded).
 */
export const DEFAULT_TOKEN_OWNERS = 1_000;

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
  APPROVALS: onOff("APPROVALS", "ask the user before /mcp sends a request that is not a GET"),
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
  MAX_RESPONSE_BYTES: wholeNumber(
    "MAX_RESPONSE_BYTES",
    "bytes of one API response body /mcp's execute reads (past it: a LimitError, none of it)",
    MAX_RESPONSE_BYTES,
    MAX_RESPONSE_BYTES_CEILING,
  ),
  MAX_RESPONSE_BYTES_PER_RUN: wholeNumber(
    "MAX_RESPONSE_BYTES_PER_RUN",
    "bytes of API response bodies one /mcp execute run reads, all together",
    MAX_RESPONSE_BYTES_PER_RUN,
    MAX_RESPONSE_BYTES_PER_RUN_CEILING,
  ),
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
  SKILLS_MAX_RUN_CODE_CHARS: wholeNumber(
    "SKILLS_MAX_RUN_CODE_CHARS",
    "characters of all the skills' code one run loads",
    DEFAULT_SKILL_LIMITS.maxRunCodeChars,
    10_000_000,
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
  SKILLS_MAX_TOKEN_OWNERS: wholeNumber(
    "SKILLS_MAX_TOKEN_OWNERS",
    "forwarded tokens (FORWARD_CALLER_TOKEN) that may keep skills, each a principal of its own",
    DEFAULT_TOKEN_OWNERS,
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
  LIMIT_MAX_CODE_CHARS: "maxCodeChars",
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
