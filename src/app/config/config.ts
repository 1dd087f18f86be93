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
import { parseAllowedHostnames } from "./allowed-hosts";
import { MIN_SECRET_LENGTH } from "../../codemode/redaction/redaction";
import { parseUpstreams, shortUpstreamCredentials, type UpstreamServer } from "./upstream-config";
import { resolveLimits } from "../../executor/limits";
import { parseExecutorSetting, type ExecutorKind } from "./executor-setting";
import type { ExecutorLimits } from "../../executor/types";
import type { AppSettings } from "./setting-names";
import { readRunSettings, type RunSettings } from "./run-settings";

export type { AppSettings } from "./setting-names";
export { SETTING_NAMES, isSettingName } from "./setting-names";

/** The spec `/mcp` serves when `SPEC` is not set. */
export const DEFAULT_SPEC = "demo-api";

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
  /** The sealing key for approvals (`REQUEST_STATE_KEY`), when set. */
  requestStateKey?: string;
  limits: Partial<ExecutorLimits>;
  /** Which executor runs programs (`EXECUTOR`, see executor-setting.ts). */
  executor: ExecutorKind;
  apiKey?: string;
  oauth: boolean;
  /** Host names the Worker answers to (`ALLOWED_HOSTNAMES`, see allowed-hosts.ts). */
  allowedHostnames: string[];
  /** The run history (`RUNS`, `RUNS_RETENTION_*`; runs/run-settings.ts). */
  runs: RunSettings;
  /** Non-fatal notes shown on the status page. */
  warnings: string[];
}

/** One bad setting: which, what is wrong, how to fix it. */
export interface ConfigProblem {
  setting: string;
  message: string;
  fix: string;
}

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

/**
 * Checks the settings.
 * @param settings - the Worker's env (only the settings above are read)
 * @param specNames - names of the compiled specs available (`COMPACT_SPECS` keys)
 * @param specServers - the `servers` of the selected spec, for a default base URL
 * @returns the configuration, or every problem found
 */
export function readConfig(
  settings: AppSettings,
  specNames: readonly string[],
  specServers: (name: string) => readonly { url?: unknown }[] = () => [],
): { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const value = (name: keyof AppSettings) => {
    const v = settings[name];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const flag = (name: keyof AppSettings) => {
    const v = value(name)?.toLowerCase();
    if (v === undefined || ["off", "false", "0", "no"].includes(v)) return false;
    if (["on", "true", "1", "yes"].includes(v)) return true;
    problems.push({
      setting: name,
      message: `${name} must be on or off; got "${settings[name]}".`,
      fix: `Set ${name}=on or ${name}=off.`,
    });
    return false;
  };
  const httpUrl = (name: keyof AppSettings): string | undefined => {
    const v = value(name);
    if (v === undefined) return undefined;
    try {
      const url = new URL(v);
      if (url.protocol === "http:" || url.protocol === "https:") return url.href;
    } catch {
      // reported below
    }
    problems.push({
      setting: name,
      message: `${name} must be an http(s) URL; got "${v}".`,
      fix: `Set ${name} to a full URL such as https://api.example.com.`,
    });
    return undefined;
  };

  const specName = value("SPEC") ?? DEFAULT_SPEC;
  if (!specNames.includes(specName))
    problems.push({
      setting: "SPEC",
      message: `No compiled spec named "${specName}". Available: ${specNames.join(", ") || "none"}.`,
      fix: `Put ${specName}.yaml (or .json) in specs/ and run npm run build:specs, or start with SPEC_FILE=/path/to/spec npm start.`,
    });

  const apiKey = value("MCP_API_KEY");
  const oauth = flag("OAUTH");
  const forward = flag("FORWARD_CALLER_TOKEN");
  if (forward && (apiKey || oauth))
    problems.push({
      setting: "FORWARD_CALLER_TOKEN",
      message:
        "FORWARD_CALLER_TOKEN forwards the caller's bearer token upstream, but that token is the MCP_API_KEY or an OAuth token of this server.",
      fix: "Unset MCP_API_KEY and OAUTH when forwarding callers' tokens (protect the Worker in front instead), or turn FORWARD_CALLER_TOKEN off.",
    });
  if (apiKey && oauth)
    problems.push({
      setting: "MCP_API_KEY",
      message: "MCP_API_KEY and OAUTH are both set; the endpoint takes one kind of bearer token.",
      fix: "Unset MCP_API_KEY (OAuth protects /mcp) or turn OAUTH off.",
    });
  if (oauth && (value("OAUTH_PASSWORD")?.length ?? 0) < 12)
    problems.push({
      setting: "OAUTH_PASSWORD",
      message:
        "OAUTH=on needs OAUTH_PASSWORD (at least 12 characters): the /authorize page asks for it before granting access.",
      fix: "Set the secret: `npx wrangler secret put OAUTH_PASSWORD` (or OAUTH_PASSWORD=… npm start).",
    });
  if (apiKey !== undefined && apiKey.length < 16)
    problems.push({
      setting: "MCP_API_KEY",
      message: "MCP_API_KEY is shorter than 16 characters.",
      fix: "Use a long random key, e.g. `openssl rand -hex 32`.",
    });

  const hosts = parseAllowedHostnames(value("ALLOWED_HOSTNAMES"));
  if (!hosts.ok) problems.push(hosts.problem);

  let api: ApiTarget = { kind: "demo" };
  const base = httpUrl("API_BASE_URL");
  const token = value("API_TOKEN");
  if (token !== undefined && token.length < MIN_SECRET_LENGTH)
    problems.push({
      setting: "API_TOKEN",
      message: `API_TOKEN is shorter than ${MIN_SECRET_LENGTH} characters: too short to redact safely from the API's responses (it would match ordinary text and JSON) and too short to be a real credential.`,
      fix: `Set API_TOKEN to the API's full token (at least ${MIN_SECRET_LENGTH} characters), without the scheme (Bearer is added).`,
    });
  const header = value("API_AUTH_HEADER") ?? "Authorization";
  const scheme =
    settings.API_AUTH_SCHEME ?? (header.toLowerCase() === "authorization" ? "Bearer" : "");
  const withScheme = (t: string) => (scheme.trim() ? `${scheme.trim()} ${t}` : t);
  if (!/^[A-Za-z0-9-]+$/.test(header))
    problems.push({
      setting: "API_AUTH_HEADER",
      message: `API_AUTH_HEADER must be an HTTP header name; got "${header}".`,
      fix: "Set API_AUTH_HEADER=Authorization (default) or e.g. X-Api-Key.",
    });
  const serverUrl = specServers(specName)
    .map((s) => String(s.url ?? ""))
    .find((u) => /^https?:\/\//.test(u));
  if (base ?? (specName !== DEFAULT_SPEC && serverUrl)) {
    api = {
      kind: "http",
      baseUrl: (base ?? serverUrl)!,
      ...(token ? { credential: { header, value: withScheme(token) } } : {}),
      forwardCallerToken: forward,
      callerHeader: header,
      callerScheme: scheme.trim(),
    };
  } else if (specName !== DEFAULT_SPEC && specNames.includes(specName) && !value("API_BASE_URL")) {
    problems.push({
      setting: "API_BASE_URL",
      message: `Spec "${specName}" has no absolute server URL, so /mcp does not know where to send requests.`,
      fix: "Set API_BASE_URL to the API's base URL, e.g. API_BASE_URL=https://api.example.com.",
    });
  } else if (token || forward) {
    warnings.push(
      "API_TOKEN / FORWARD_CALLER_TOKEN are ignored: /mcp serves the in-process demo API (set API_BASE_URL to use them).",
    );
  }

  let upstream: UpstreamTarget = specName === DEFAULT_SPEC ? { kind: "demo" } : { kind: "off" };
  const upstreamSetting = value("UPSTREAM_MCP_URL");
  if (upstreamSetting) {
    const parsed = parseUpstreams(
      upstreamSetting,
      value("UPSTREAM_MCP_AUTH"),
      value("UPSTREAM_MCP_AUTH_HEADER") ?? "Authorization",
    );
    problems.push(...parsed.problems);
    problems.push(...shortUpstreamCredentials(parsed.servers));
    if (parsed.servers.length > 0) upstream = { kind: "url", servers: parsed.servers };
  } else if (value("UPSTREAM_MCP_AUTH"))
    warnings.push("UPSTREAM_MCP_AUTH is ignored without UPSTREAM_MCP_URL.");

  const approvals = flag("APPROVALS");
  const requestStateKey = value("REQUEST_STATE_KEY");
  if (requestStateKey !== undefined && new TextEncoder().encode(requestStateKey).length < 32)
    problems.push({
      setting: "REQUEST_STATE_KEY",
      message: "REQUEST_STATE_KEY must be at least 32 bytes.",
      fix: "Use `openssl rand -hex 32` and store it as a secret.",
    });
  if (approvals && requestStateKey === undefined)
    warnings.push(
      "APPROVALS is on without REQUEST_STATE_KEY: approvals are sealed with a per-isolate key, which works locally but not across Cloudflare isolates. Set the REQUEST_STATE_KEY secret when deploying.",
    );

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

  const runs = readRunSettings(settings, problems);
  const executor = parseExecutorSetting(settings.EXECUTOR);
  if (!executor.ok)
    problems.push({ setting: "EXECUTOR", message: executor.message, fix: executor.fix });

  if (problems.length > 0 || !executor.ok) return { ok: false, problems };
  return {
    ok: true,
    config: {
      specName,
      api,
      upstream,
      approvals,
      ...(requestStateKey ? { requestStateKey } : {}),
      limits,
      executor: executor.kind,
      ...(apiKey ? { apiKey } : {}),
      oauth,
      allowedHostnames: hosts.ok ? hosts.hostnames : [],
      runs,
      warnings,
    },
  };
}

/**
 * Formats problems for a person: one line per setting with the fix.
 * @param problems - from {@link readConfig}
 */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `- ${p.setting}: ${p.message}\n  Fix: ${p.fix}`).join("\n");
}
