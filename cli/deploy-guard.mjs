// `code-mode-mcp deploy` does not publish an open door: a Worker that would hold a credential
// (API_TOKEN, UPSTREAM_MCP_AUTH) and check no caller (no MCP_API_KEY or OAUTH=on) would let anyone who learns its URL make requests as the owner. The
// deployed Worker refuses such callers itself (src/app/anonymous-guard.ts), but a deploy that
// knows it is about to publish one says so first, with the key to add, rather than leaving the
// operator to find out from a 403. The credential counts when deploy can see it: in the
// environment (which deploy uploads as secrets) or in the Worker's vars. Secrets put earlier
// with `wrangler secret put` cannot be read back; the Worker's own refusal covers those.

/** Settings that carry a credential the Worker sends upstream. */
export const CREDENTIALS = ["API_TOKEN", "UPSTREAM_MCP_AUTH"];
/** Secrets deploy uploads from its environment (src/app/config/setting-table.ts names them). */
export const DEPLOY_SECRETS = [
  ...CREDENTIALS,
  "MCP_API_KEY",
  "OAUTH_PASSWORD",
  "REQUEST_STATE_KEY",
];

/** @param {string | undefined} value @returns {boolean} an on/off setting's "on" */
const on = (value) =>
  ["on", "true", "1", "yes"].includes(
    String(value ?? "")
      .trim()
      .toLowerCase(),
  );
/** @param {string | undefined} value @returns {boolean} */
const set = (value) => typeof value === "string" && value.trim() !== "";

/**
 * Why this deploy is refused, or undefined when it may go.
 * @param {Record<string, string | undefined>} env - deploy's environment
 * @param {Record<string, unknown>} vars - the Worker's `vars` (its wrangler config)
 * @returns {string | undefined} the refusal, naming the credential, the key to add and the opt-out
 */
export function unguardedDeploy(env, vars) {
  /** @param {string} name @returns {string | undefined} */
  const value = (name) => env[name] ?? (typeof vars[name] === "string" ? vars[name] : undefined);
  const credentials = CREDENTIALS.filter((name) => set(value(name)));
  if (credentials.length === 0) return undefined;
  // FORWARD_CALLER_TOKEN=on is no check here: a caller who sends no token gets API_TOKEN in its
  // place, and /mcp/code sends UPSTREAM_MCP_AUTH to anyone (src/app/anonymous-guard.ts).
  if (set(value("MCP_API_KEY")) || on(value("OAUTH"))) return undefined;
  if (on(value("ALLOW_ANONYMOUS"))) return undefined;
  return [
    `deploy: ${credentials.join(" and ")} ${credentials.length > 1 ? "are" : "is"} set, but nothing checks who calls the Worker (no MCP_API_KEY or OAUTH=on; FORWARD_CALLER_TOKEN=on checks no one while the Worker holds a credential of its own): anyone who learns its URL could make requests with ${credentials.length > 1 ? "those credentials" : "that credential"}. Nothing was deployed.`,
    "  Fix: add a key clients must send as `Authorization: Bearer <key>`:",
    "    MCP_API_KEY=$(openssl rand -hex 32) npx code-mode-mcp deploy   (keep the key for your clients; docs/clients.md)",
    "  or set OAUTH=on with OAUTH_PASSWORD; or, for a server meant to be open to anyone, ALLOW_ANONYMOUS=on.",
  ].join("\n");
}

/**
 * The secrets deploy uploads with the version: those of {@link DEPLOY_SECRETS} set in `env`.
 * @param {Record<string, string | undefined>} env
 * @returns {Record<string, string>}
 */
export function deploySecrets(env) {
  return Object.fromEntries(
    DEPLOY_SECRETS.filter((name) => set(env[name])).map((name) => [
      name,
      /** @type {string} */ (env[name]),
    ]),
  );
}
