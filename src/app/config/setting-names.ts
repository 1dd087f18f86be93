/**
 * The one list of the product's settings. The Worker reads them from its env (src/app/config/config.ts
 * checks them), and the local launchers (`npm start`, the `code-mode-mcp` command; cli/serve.mjs)
 * pass exactly these (and `LIMIT_*`) from the environment to the runtime, so a new setting is
 * declared here once.
 */

/** Every setting the product reads, besides the executor limits (`LIMIT_*`, see config.ts). */
export const SETTING_NAMES = [
  "SPEC",
  "API_BASE_URL",
  "API_TOKEN",
  "API_AUTH_HEADER",
  "API_AUTH_SCHEME",
  "FORWARD_CALLER_TOKEN",
  "UPSTREAM_MCP_URL",
  "UPSTREAM_MCP_AUTH",
  "UPSTREAM_MCP_AUTH_HEADER",
  "APPROVALS",
  "WITHHOLD_RESPONSE_BODIES",
  "MAX_RESPONSE_BYTES",
  "MAX_RESPONSE_BYTES_PER_RUN",
  "REQUEST_STATE_KEY",
  "MCP_API_KEY",
  "ALLOW_ANONYMOUS",
  "OAUTH",
  "OAUTH_PASSWORD",
  "OAUTH_REGISTRATIONS_PER_HOUR",
  "OAUTH_REGISTRATIONS_PER_DAY",
  "ALLOWED_HOSTNAMES",
  "RUNS",
  "RUNS_RETENTION_DAYS",
  "RUNS_RETENTION_COUNT",
  "RUNS_RETENTION_BYTES",
  "EXECUTOR",
  "SKILLS",
  "SKILLS_MAX_PER_PRINCIPAL",
  "SKILLS_MAX_VERSIONS",
  "SKILLS_MAX_CODE_CHARS",
  "SKILLS_MAX_RUN_CODE_CHARS",
  "SKILLS_MAX_DESCRIPTION_CHARS",
  "SKILLS_MAX_SCHEMA_CHARS",
  "SKILLS_MAX_TOKEN_OWNERS",
] as const;

/** One of {@link SETTING_NAMES}. */
export type SettingName = (typeof SETTING_NAMES)[number];

/** The settings the product reads (all optional strings, as Workers vars are). */
export type AppSettings = { [name in SettingName]?: string } & {
  [limit: `LIMIT_${string}`]: string | undefined;
};

/**
 * Whether an environment variable is a product setting (a named one or an executor limit).
 * @param name - an environment variable's name
 */
export function isSettingName(name: string): boolean {
  return (SETTING_NAMES as readonly string[]).includes(name) || name.startsWith("LIMIT_");
}

/**
 * The Worker var through which a launcher hands the Worker specs it compiled at start
 * (`SPEC_FILE`, `serve --spec`): JSON, spec name → compact spec. Not a user setting: the launcher
 * writes it (see launch-specs.ts), so the Worker entry is the same prebuilt one for every spec.
 */
export const LAUNCH_SPECS_VAR = "LAUNCH_SPECS";

/**
 * The Worker var through which a launcher hands the Worker the operator's read-only skills it read
 * from `SKILLS_DIR` at start (JSON: a list of checked skills; see src/app/skills/operator-skills.ts).
 * Not a user setting.
 */
export const LAUNCH_SKILLS_VAR = "LAUNCH_SKILLS";

/**
 * The `Symbol.for` key of the global through which a deployed Worker gets the operator's skills:
 * `code-mode-mcp deploy` with `SKILLS_DIR` adds a module that sets it (same JSON as
 * {@link LAUNCH_SKILLS_VAR}), since a var holds at most 5 KB (cli/deploy-skills.mjs).
 */
export const BUNDLED_SKILLS_KEY = "code-mode-mcp.operator-skills";

/**
 * The Worker var through which a launcher hands the Worker the o200k counts it made at start of
 * the tools `/mcp` lists (JSON, digest → counts; see src/app/tools-list-count.ts): the launcher
 * has the tokenizer, the Worker does not. Not a user setting.
 */
export const LAUNCH_TOKENS_VAR = "LAUNCH_TOOLS_LIST_TOKENS";
