// The per-user key that authenticates the compiled-spec cache's entries (cli/kept/spec-cache.mjs). An
// entry carries everything the server does with a spec, the base URL the credential goes to
// among it, so an entry the launcher did not write itself must never be read back (issue #40: an
// edited entry redirected API_TOKEN to another address). The key lives in the user's config
// folder, not beside the entries: whatever can write the cache folder (a shared or synced cache,
// a tool allowed to write caches, a restored backup) cannot forge an entry without it. 32 random
// bytes, hex, in a 0600 file in a 0700 folder; loose modes found are tightened. The file is read
// without following a link or waiting on a FIFO. Without a usable key there is no cache (a full
// compile), never a failed start.
import { randomBytes } from "node:crypto";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ownFolder, readOwnFile } from "../private-files.mjs";

/** A key file younger than this that cannot be read whole may be another launch writing it. */
const WRITING_MS = 60_000;
/** The most a key file is read of: 64 hex digits and a line end, with room for a `\r\n`. */
const MAX_KEY_FILE_BYTES = 128;

/**
 * Where the key lives: `$XDG_CONFIG_HOME/code-mode-mcp/spec-cache.key` when XDG_CONFIG_HOME is
 * set, else the platform's user config folder (`~/Library/Application Support` on macOS,
 * `%APPDATA%` on Windows, `~/.config` elsewhere): never inside the cache folder.
 * @param {Record<string, string | undefined>} env - the launcher's environment
 * @param {NodeJS.Platform} [platform]
 * @returns {string}
 */
export function specCacheKeyFile(env, platform = process.platform) {
  const base = env.XDG_CONFIG_HOME?.trim()
    ? resolve(env.XDG_CONFIG_HOME)
    : platform === "darwin"
      ? join(homedir(), "Library", "Application Support")
      : platform === "win32"
        ? (env.APPDATA ?? join(homedir(), "AppData", "Roaming"))
        : join(homedir(), ".config");
  return join(base, "code-mode-mcp", "spec-cache.key");
}

/**
 * The key in `file`, made on first use (exclusively: two launches at once agree on one key).
 * @param {string} file - {@link specCacheKeyFile}
 * @returns {Buffer | undefined} undefined when no key can be read or made (then: no cache)
 */
export function specCacheKey(file) {
  try {
    ownFolder(dirname(file));
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        // Through one descriptor, never through a link nor waiting on a FIFO (private-files.mjs):
        // a key file linked to one whose key another knows let them forge entries, and a FIFO
        // in its place hung the launcher. Tightened to 0600 as it is read.
        const text = readOwnFile(file, MAX_KEY_FILE_BYTES)?.toString("utf8").trim();
        if (text !== undefined && /^[0-9a-f]{64}$/.test(text)) return Buffer.from(text, "hex");
        // Unreadable: another launch may be writing it this instant, else it is damaged.
        if (Date.now() - statSync(file).mtimeMs < WRITING_MS) return undefined;
        rmSync(file, { force: true });
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ENOENT") throw error;
      }
      try {
        const hex = Array.from(randomBytes(32), (b) => b.toString(16).padStart(2, "0")).join("");
        writeFileSync(file, `${hex}\n`, { flag: "wx", mode: 0o600 });
        return Buffer.from(hex, "hex");
      } catch (error) {
        // Another launch made it first: read theirs.
        if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
      }
    }
    return undefined;
  } catch {
    return undefined;
  }
}
