/**
 * The product's configuration: Worker vars and secrets (wrangler.jsonc `vars`, `wrangler secret
 * put`, `.dev.vars`, or the environment at `npm start`), checked in one place so a bad setting
 * is reported with its name and the fix, at start-up (scripts/start.mjs runs this same check)
 * and on every request (`/health`, `/` and the MCP routes show the problems).
 *
 * Security defaults: secrets (`API_TOKEN`, `UPSTREAM_MCP_AUTH`, `MCP_API_KEY`,
 * `REQUEST_STATE_KEY`, `OAUTH_PASSWORD`) are never part of a problem message or of {@link describeConfig}.
 * Credentials sent upstream (`API_TOKEN`, `UPSTREAM_MCP_AUTH`) must be long enough to redact
 * safely from what comes back (`MIN_SECRET_LENGTH`, 8 characters): a shorter one is refused here.
 */
import { parseUpstreams, shortUpstreamCredentials, type UpstreamServer } from "./upstream-config";
import type { ExecutorKind } from "./executor-setting";
import type { ExecutorLimits } from "../../executor/types";
import type { AppSettings } from "./setting-names";
import type { SkillLimits } from "../../codemode/skills/skill-limits";
import type { RunSettings } from "./run-settings";
import { DEFAULT_SPEC, readSettings, SETTING_TABLE, type SettingValues } from "./setting-table";
import type { ConfigProblem } from "./setting-rows";
import { CONFIG_RULES, servesHttpApi } from "./config-rules";

export type { AppSettings } from "./setting-names";
export { SETTING_NAMES, isSettingName } from "./setting-names";
export { DEFAULT_SPEC, LIMIT_SETTINGS, SETTING_TABLE } from "./setting-table";
export type { ConfigProblem } from "./setting-rows";

/** Where `/mcp`'s request callback sends requests. */
export type ApiTarget =
  | { kind: "demo" }
  | {
      kind: "http";
      baseUrl: string;
      /** Header name and full value carrying the configured credential, if any. */
      credential?: { header: string; value: string };
      /** Forward the MCP caller's own bearer token (per-user credentials). */
      forwardCallerToken: boolean;
      /** Header used for a forwarded caller token. */
      callerHeader: string;
      callerScheme: string;
    };

/**
 * What `/mcp/code` wraps: the demo projects server (only with the demo spec), the configured
 * MCP servers, or nothing (`off`: a spec of your own and no `UPSTREAM_MCP_URL`, so the demo's
 * tools never sit beside your API).
 */
export type UpstreamTarget =
  | { kind: "demo" }
  | { kind: "off" }
  | { kind: "url"; servers: UpstreamServer[] };

/** A checked configuration. */
export interface AppConfig {
  specName: string;
  api: ApiTarget;
  upstream: UpstreamTarget;
  approvals: boolean;
  /** Operation ids whose response bodies never reach the program (`WITHHOLD_RESPONSE_BODIES`). */
  withheldOperations: string[];
  /**
   * Bytes of API response bodies `/mcp`'s execute reads: of one body (`MAX_RESPONSE_BYTES`) and
   * of a run's bodies together (`MAX_RESPONSE_BYTES_PER_RUN`); src/codemode/request/response-budget.ts.
   */
  responses: { maxBytes: number; maxBytesPerRun: number };
  /** The sealing key for approvals (`REQUEST_STATE_KEY`), when set. */
  requestStateKey?: string;
  limits: Partial<ExecutorLimits>;
  /** Which executor runs programs (`EXECUTOR`, see executor-setting.ts). */
  executor: ExecutorKind;
  apiKey?: string;
  oauth: boolean;
  /** Serve callers with no check when deployed (`ALLOW_ANONYMOUS=on`, anonymous-guard.ts). */
  allowAnonymous: boolean;
  /** Host names the Worker answers to (`ALLOWED_HOSTNAMES`, see allowed-hosts.ts). */
  allowedHostnames: string[];
  /** The run history (`RUNS`, `RUNS_RETENTION_*`; runs/run-settings.ts). */
  runs: RunSettings;
  /** Saved skills (`SKILLS`, `SKILLS_MAX_*`; docs/skills.md): off, or the limits. */
  /** `maxTokenOwners`: forwarded tokens that may keep skills (token-owners.ts). */
  skills: { enabled: boolean; limits: Partial<SkillLimits>; maxTokenOwners: number };
  /** Non-fatal notes shown on the status page. */
  warnings: string[];
}

/**
 * Checks the settings: each on its own (the table, setting-table.ts), then what they mean for
 * each other (the rules, config-rules.ts), then assembles where `/mcp` and `/mcp/code` send
 * their calls. Problems are listed in the table's order.
 * @param settings - the Worker's env (only the settings of the table and `LIMIT_*` are read)
 * @param specNames - names of the compiled specs available (`COMPACT_SPECS` keys)
 * @param specServers - the `servers` of the selected spec, for a default base URL
 * @param specAuth - whether a spec defines any security scheme (spec-auth.ts); without it, a
 *   missing `API_TOKEN` is always noted
 * @returns the configuration, or every problem found
 */
export function readConfig(
  settings: AppSettings,
  specNames: readonly string[],
  specServers: (name: string) => readonly { url?: unknown }[] = () => [],
  specAuth?: (name: string) => boolean,
): { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] } {
  const read = readSettings(settings);
  const { values, limits } = read;
  const specServerUrl = specServers(values.SPEC)
    .map((s) => String(s.url ?? ""))
    .find((u) => /^https?:\/\//.test(u));
  const problems = [...read.problems];
  const warnings: string[] = [];
  // Asked once, not once per rule: the launchers answer it by parsing the spec's text (4 MB
  // for Cloudflare's), and asking per rule parsed it a dozen times per launch (issue #43).
  const auth = specAuth && specNames.includes(values.SPEC) ? specAuth(values.SPEC) : undefined;
  for (const rule of CONFIG_RULES) {
    const found = rule.check({ ...read, specNames, specServerUrl, specAuth: auth });
    problems.push(...(found?.problems ?? []));
    warnings.push(...(found?.warnings ?? []));
  }
  const upstream = upstreamTarget(values, problems);
  if (problems.length > 0) return { ok: false, problems: inTableOrder(problems) };
  return {
    ok: true,
    config: {
      specName: values.SPEC,
      api: servesHttpApi(values, specServerUrl)
        ? httpApi(values, /** checked by servesHttpApi */ (values.API_BASE_URL ?? specServerUrl)!)
        : { kind: "demo" },
      upstream,
      approvals: values.APPROVALS,
      withheldOperations: values.WITHHOLD_RESPONSE_BODIES,
      responses: {
        maxBytes: values.MAX_RESPONSE_BYTES,
        maxBytesPerRun: values.MAX_RESPONSE_BYTES_PER_RUN,
      },
      ...(values.REQUEST_STATE_KEY ? { requestStateKey: values.REQUEST_STATE_KEY } : {}),
      limits,
      executor: values.EXECUTOR,
      ...(values.MCP_API_KEY ? { apiKey: values.MCP_API_KEY } : {}),
      oauth: values.OAUTH,
      allowAnonymous: values.ALLOW_ANONYMOUS,
      allowedHostnames: values.ALLOWED_HOSTNAMES,
      runs: {
        enabled: values.RUNS,
        retentionDays: values.RUNS_RETENTION_DAYS,
        retentionCount: values.RUNS_RETENTION_COUNT,
        retentionBytes: values.RUNS_RETENTION_BYTES,
      },
      skills: {
        enabled: values.SKILLS,
        limits: {
          maxSkills: values.SKILLS_MAX_PER_PRINCIPAL,
          maxVersions: values.SKILLS_MAX_VERSIONS,
          maxCodeChars: values.SKILLS_MAX_CODE_CHARS,
          maxRunCodeChars: values.SKILLS_MAX_RUN_CODE_CHARS,
          maxDescriptionChars: values.SKILLS_MAX_DESCRIPTION_CHARS,
          maxSchemaChars: values.SKILLS_MAX_SCHEMA_CHARS,
        },
        maxTokenOwners: values.SKILLS_MAX_TOKEN_OWNERS,
      },
      warnings,
    },
  };
}

/**
 * Where `/mcp` sends requests when it serves an HTTP API: the base URL, the credential in its
 * header and scheme (`Bearer` by default on `Authorization`), and the caller-token forwarding.
 */
function httpApi(values: SettingValues, baseUrl: string): ApiTarget {
  const header = values.API_AUTH_HEADER;
  const scheme = (
    values.API_AUTH_SCHEME ?? (header.toLowerCase() === "authorization" ? "Bearer" : "")
  ).trim();
  const token = values.API_TOKEN;
  return {
    kind: "http",
    baseUrl,
    ...(token ? { credential: { header, value: scheme ? `${scheme} ${token}` : token } } : {}),
    forwardCallerToken: values.FORWARD_CALLER_TOKEN,
    callerHeader: header,
    callerScheme: scheme,
  };
}

/**
 * What `/mcp/code` wraps: the servers of `UPSTREAM_MCP_URL` (their problems, and credentials
 * too short to redact, added to `problems`), else the demo with the demo spec, else nothing.
 */
function upstreamTarget(values: SettingValues, problems: ConfigProblem[]): UpstreamTarget {
  const fallback: UpstreamTarget =
    values.SPEC === DEFAULT_SPEC ? { kind: "demo" } : { kind: "off" };
  if (values.UPSTREAM_MCP_URL === undefined) return fallback;
  const parsed = parseUpstreams(
    values.UPSTREAM_MCP_URL,
    values.UPSTREAM_MCP_AUTH,
    values.UPSTREAM_MCP_AUTH_HEADER,
  );
  problems.push(...parsed.problems, ...shortUpstreamCredentials(parsed.servers));
  return parsed.servers.length > 0 ? { kind: "url", servers: parsed.servers } : fallback;
}

/** Where each setting's problems are listed: the table's order, `LIMIT_*` after the secrets. */
const ORDER: readonly string[] = Object.keys(SETTING_TABLE).flatMap((name) =>
  name === "REQUEST_STATE_KEY" ? [name, "LIMIT_*"] : [name],
);

/** @returns the problems sorted by {@link ORDER} (stable: a setting's own come first) */
function inTableOrder(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const rank = (setting: string) => {
    const i = ORDER.indexOf(setting.startsWith("LIMIT_") ? "LIMIT_*" : setting);
    return i === -1 ? ORDER.length : i;
  };
  return problems.toSorted((a, b) => rank(a.setting) - rank(b.setting));
}

/**
 * Formats problems for a person: one line per setting with the fix.
 * @param problems - from {@link readConfig}
 */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `- ${p.setting}: ${p.message}\n  Fix: ${p.fix}`).join("\n");
}
