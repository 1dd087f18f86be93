/**
 * The rules between settings: what one setting means for another, checked after each setting
 * was read on its own (setting-table.ts). A rule names the settings it relates and returns the
 * problems (the configuration is refused) and warnings (shown on the status page) it finds.
 *
 * Security defaults: no rule puts a setting's value in a message (most of these are secrets).
 */
import { DEFAULT_SPEC, type ReadSettings, type SettingValues } from "./setting-table";
import type { ConfigProblem } from "./setting-rows";
import type { SettingName } from "./setting-names";

/** What a rule sees: the settings as read, and the specs the Worker has. */
export interface RuleInput extends ReadSettings {
  /** Names of the compiled specs available (`COMPACT_SPECS` keys). */
  specNames: readonly string[];
  /** The first absolute `servers` URL of the selected spec, if it has one. */
  specServerUrl: string | undefined;
  /** Whether the selected spec defines any security scheme (`undefined`: not known). */
  specAuth?: boolean | undefined;
}

/** What a rule found. */
export interface RuleFindings {
  problems?: ConfigProblem[];
  warnings?: string[];
}

/** One rule between settings. */
export interface ConfigRule {
  /** The settings it relates (the first is the one a problem is reported on). */
  settings: readonly SettingName[];
  check: (input: RuleInput) => RuleFindings | undefined;
}

/** @returns findings of one problem */
const problem = (setting: SettingName, message: string, fix: string): RuleFindings => ({
  problems: [{ setting, message, fix }],
});

/**
 * Whether /mcp sends requests to an HTTP API (else it serves the in-process demo API): with an
 * API_BASE_URL, or a spec of one's own with an absolute server URL.
 */
export function servesHttpApi(values: SettingValues, specServerUrl: string | undefined): boolean {
  return (
    values.API_BASE_URL !== undefined ||
    (values.SPEC !== DEFAULT_SPEC && specServerUrl !== undefined)
  );
}

/** Every rule, in the order its findings are listed. */
export const CONFIG_RULES: readonly ConfigRule[] = [
  {
    settings: ["SPEC"],
    check: ({ values, specNames }) =>
      specNames.includes(values.SPEC)
        ? undefined
        : problem(
            "SPEC",
            `No compiled spec named "${values.SPEC}". Available: ${specNames.join(", ") || "none"}.`,
            `Put ${values.SPEC}.yaml (or .json) in specs/ and run npm run build:specs, or start with SPEC_FILE=/path/to/spec npm start.`,
          ),
  },
  {
    settings: ["FORWARD_CALLER_TOKEN", "MCP_API_KEY", "OAUTH"],
    check: ({ values }) =>
      values.FORWARD_CALLER_TOKEN && (values.MCP_API_KEY || values.OAUTH)
        ? problem(
            "FORWARD_CALLER_TOKEN",
            "FORWARD_CALLER_TOKEN forwards the caller's bearer token upstream, but that token is the MCP_API_KEY or an OAuth token of this server.",
            "Unset MCP_API_KEY and OAUTH when forwarding callers' tokens (protect the Worker in front instead), or turn FORWARD_CALLER_TOKEN off.",
          )
        : undefined,
  },
  {
    settings: ["MCP_API_KEY", "OAUTH"],
    check: ({ values }) =>
      values.MCP_API_KEY && values.OAUTH
        ? problem(
            "MCP_API_KEY",
            "MCP_API_KEY and OAUTH are both set; the endpoint takes one kind of bearer token.",
            "Unset MCP_API_KEY (OAuth protects /mcp) or turn OAUTH off.",
          )
        : undefined,
  },
  {
    settings: ["OAUTH_PASSWORD", "OAUTH"],
    check: ({ values }) =>
      values.OAUTH && (values.OAUTH_PASSWORD?.length ?? 0) < 12
        ? problem(
            "OAUTH_PASSWORD",
            "OAUTH=on needs OAUTH_PASSWORD (at least 12 characters): the /authorize page asks for it before granting access.",
            "Set the secret: `npx wrangler secret put OAUTH_PASSWORD` (or OAUTH_PASSWORD=… npm start).",
          )
        : undefined,
  },
  {
    // A spec of one's own needs somewhere to send requests (an invalid API_BASE_URL is
    // reported by the setting itself).
    settings: ["API_BASE_URL", "SPEC"],
    check: ({ values, given, specNames, specServerUrl }) =>
      !servesHttpApi(values, specServerUrl) &&
      values.SPEC !== DEFAULT_SPEC &&
      specNames.includes(values.SPEC) &&
      !given.has("API_BASE_URL")
        ? problem(
            "API_BASE_URL",
            `Spec "${values.SPEC}" has no absolute server URL, so /mcp does not know where to send requests.`,
            "Set API_BASE_URL to the API's base URL, e.g. API_BASE_URL=https://api.example.com.",
          )
        : undefined,
  },
  {
    settings: ["API_TOKEN", "FORWARD_CALLER_TOKEN", "API_BASE_URL"],
    check: ({ values, specServerUrl }) =>
      !servesHttpApi(values, specServerUrl) &&
      values.SPEC === DEFAULT_SPEC &&
      (values.API_TOKEN || values.FORWARD_CALLER_TOKEN)
        ? {
            warnings: [
              "API_TOKEN / FORWARD_CALLER_TOKEN are ignored: /mcp serves the in-process demo API (set API_BASE_URL to use them).",
            ],
          }
        : undefined,
  },
  {
    // Without a token requests go out with no credentials: a user who forgot API_TOKEN would
    // otherwise learn it only from the API's 401s. Quiet for a spec that defines no auth.
    settings: ["API_TOKEN", "FORWARD_CALLER_TOKEN", "API_BASE_URL"],
    check: ({ values, specServerUrl, specAuth }) =>
      servesHttpApi(values, specServerUrl) &&
      !values.API_TOKEN &&
      !values.FORWARD_CALLER_TOKEN &&
      specAuth !== false
        ? {
            warnings: [
              "API_TOKEN is not set: requests to the API go out without credentials. Set API_TOKEN (or FORWARD_CALLER_TOKEN=on to pass each caller's token) if the API needs authentication.",
            ],
          }
        : undefined,
  },
  {
    settings: ["UPSTREAM_MCP_AUTH", "UPSTREAM_MCP_URL"],
    check: ({ values }) =>
      values.UPSTREAM_MCP_URL === undefined && values.UPSTREAM_MCP_AUTH
        ? { warnings: ["UPSTREAM_MCP_AUTH is ignored without UPSTREAM_MCP_URL."] }
        : undefined,
  },
  {
    settings: ["APPROVALS", "REQUEST_STATE_KEY"],
    check: ({ values }) =>
      values.APPROVALS && values.REQUEST_STATE_KEY === undefined
        ? {
            warnings: [
              "APPROVALS is on without REQUEST_STATE_KEY: approvals are sealed with a per-isolate key, which works locally but not across Cloudflare isolates. Set the REQUEST_STATE_KEY secret when deploying.",
            ],
          }
        : undefined,
  },
];
