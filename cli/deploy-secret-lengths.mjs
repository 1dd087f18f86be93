// `code-mode-mcp deploy` refuses to upload a secret the deployed Worker would refuse: the Worker
// checks each secret's length at its first request (src/app/config/setting-table.ts,
// config-rules.ts, upstream-config.ts) and answers every request with the configuration problem,
// so a short secret uploaded by deploy made a Worker that served nothing, found only after the
// deploy. The same rules, checked before anything is built or sent; the product's own check is
// what test/unit/cli/deploy/deploy-secret-lengths.test.ts compares these with, so the two cannot drift.

/** The shortest secret redaction accepts (src/codemode/redaction/redaction.ts MIN_SECRET_LENGTH). */
export const MIN_SECRET_LENGTH = 8;

/** Minimums per secret: characters, or UTF-8 bytes for REQUEST_STATE_KEY. */
export const SECRET_MINIMUMS = {
  API_TOKEN: { chars: MIN_SECRET_LENGTH },
  MCP_API_KEY: { chars: 16 },
  OAUTH_PASSWORD: { chars: 12 },
  REQUEST_STATE_KEY: { bytes: 32 },
};

/** What each too-short secret should be instead. */
const FIXES = {
  API_TOKEN: "the API's full token, without the scheme",
  MCP_API_KEY: "a long random key, e.g. `openssl rand -hex 32`",
  OAUTH_PASSWORD: "a passphrase of at least 12 characters, e.g. `openssl rand -base64 32`",
  REQUEST_STATE_KEY: "`openssl rand -hex 32`",
};

/**
 * The bare tokens of UPSTREAM_MCP_AUTH (one header value, or a JSON object of values by server
 * name), each after its scheme, as the Worker reads them.
 * @param {string} value
 * @returns {{ name: string | undefined, bare: string }[]}
 */
function upstreamTokens(value) {
  const trimmed = value.trim();
  /** @type {[string | undefined, unknown][]} */
  let entries = [[undefined, trimmed]];
  if (trimmed.startsWith("{")) {
    try {
      entries = Object.entries(JSON.parse(trimmed));
    } catch {
      // Not JSON: the Worker refuses it with its own message; here it is one value.
    }
  }
  return entries
    .filter(([, header]) => typeof header === "string")
    .map(([name, header]) => ({
      name,
      bare: /** @type {string} */ (header).trim().replace(/^\S+\s+/, ""),
    }));
}

/**
 * Why the secrets deploy would upload are refused, or undefined when every one is long enough.
 * Never holds a secret's value: only names and lengths asked for.
 * @param {Record<string, string>} secrets - what deploy would upload (deploySecrets)
 * @returns {string | undefined}
 */
export function shortSecrets(secrets) {
  const problems = [];
  for (const [name, min] of Object.entries(SECRET_MINIMUMS)) {
    const value = secrets[name];
    if (value === undefined) continue;
    const length = "bytes" in min ? new TextEncoder().encode(value).length : value.length;
    const wanted = "bytes" in min ? min.bytes : min.chars;
    if (length < wanted)
      problems.push(
        `  ${name} is shorter than ${wanted} ${"bytes" in min ? "bytes" : "characters"}: set ${FIXES[/** @type {keyof FIXES} */ (name)]}.`,
      );
  }
  if (secrets.UPSTREAM_MCP_AUTH !== undefined)
    for (const { name, bare } of upstreamTokens(secrets.UPSTREAM_MCP_AUTH))
      if (bare.length < MIN_SECRET_LENGTH)
        problems.push(
          `  UPSTREAM_MCP_AUTH${name ? ` for "${name}"` : ""} has a token shorter than ${MIN_SECRET_LENGTH} characters: set the server's full credential, e.g. "Bearer <token>".`,
        );
  if (problems.length === 0) return undefined;
  return [
    "deploy: the deployed Worker would refuse these secrets and answer every request with that problem (a short secret cannot be redacted safely from responses, or guessed too easily). Nothing was deployed.",
    ...problems,
  ].join("\n");
}
