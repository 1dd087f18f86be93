/**
 * The key a `code-mode-mcp --stdio` server asks of its callers. Under `--stdio` the desktop client
 * speaks to the bridge on stdin/stdout, but the bridge reaches the server over HTTP on a free port
 * of 127.0.0.1, which every process on the machine reaches (another user, a container sharing the
 * network, a stray tool). With no caller check configured, any of them could call `execute` with
 * the user's `API_TOKEN` or `code` with `UPSTREAM_MCP_AUTH` (a stranger's POST to the port ran a
 * program before). So a `--stdio` launch with no caller check of its own gets an `MCP_API_KEY`
 * of its own, which only its bridge sends (the front checks it from the headers, before a body
 * is read). It travels as the other settings do: to the launch check over its IPC channel and to
 * the host runtime as a binding on workerd's stdin; never an argument, an environment variable of
 * a child, a file or the output.
 *
 * The key is the same for every launch of this user (an HMAC of a fixed label under the user's
 * own key, the one that authenticates the spec cache, kept 0600 outside the cache folder), so
 * what a session with `PERSIST_TO` saved under the key's owner (skills: skill-owner.ts names
 * them by the key's hash) is found by the next session; random per launch when that key cannot
 * be read or made.
 *
 * A key the user set (`MCP_API_KEY`) is the one the bridge sends (before, the bridge sent none,
 * and every call of such a session was refused). With `OAUTH` or `FORWARD_CALLER_TOKEN` on, the
 * callers' own tokens are the check (the configuration refuses a key beside them), and none is
 * added. Strangers are kept off the port in front of this by the bridge's per-launch secret
 * (front/bridge-only.mjs), whatever the caller check: this key is the caller's identity.
 */
import { createHmac, randomBytes } from "node:crypto";
import { specCacheKey, specCacheKeyFile } from "../kept/spec-cache-key.mjs";

/** Values of an on/off setting that mean off or unset (src/app/config/setting-rows.ts). */
const OFF = new Set(["", "off", "false", "0", "no"]);

/**
 * The environment a `--stdio` launch serves with, and the key its bridge sends.
 * @template {Record<string, string | undefined>} E
 * @param {E} env - the launch's settings (environment and flags)
 * @param {() => string} [makeKey] - the key to add (tests inject one)
 * @returns {{ env: E, key: string | undefined }} `key` undefined when the callers'
 *   own tokens are the check
 */
export function stdioCallerKey(env, makeKey = () => userStdioKey(env)) {
  const given = env.MCP_API_KEY?.trim();
  if (given) return { env, key: given };
  // Any value but off (an invalid one too: the check refuses it) leaves the choice to the user.
  /** @param {string} name */
  const on = (name) => !OFF.has((env[name] ?? "").trim().toLowerCase());
  if (on("OAUTH") || on("FORWARD_CALLER_TOKEN")) return { env, key: undefined };
  const key = makeKey();
  return { env: { ...env, MCP_API_KEY: key }, key };
}

/**
 * This user's `--stdio` key: an HMAC under the user's key (cli/kept/spec-cache-key.mjs), or a
 * random one when that key cannot be read or made.
 * @param {Record<string, string | undefined>} env - where the user's config folder is (XDG_CONFIG_HOME)
 * @param {() => Buffer | undefined} [userKey] - the user's key (tests inject one)
 * @returns {string} 256 bits, URL-safe text
 */
export function userStdioKey(env, userKey = () => specCacheKey(specCacheKeyFile(env))) {
  const key = userKey();
  return key
    ? createHmac("sha256", key).update("code-mode-mcp --stdio caller key 1").digest("base64url")
    : Buffer.from(randomBytes(32)).toString("base64url");
}
