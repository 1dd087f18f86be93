// The o200k count of what /mcp lists (LAUNCH_TOOLS_LIST_TOKENS, cli/serve.mjs), kept between
// launches. Counting lists the tools through a real MCP client and loads the tokenizer (its
// tables: ~0.3 s of CPU to load, more to list and count): a desktop launch paid it on every start
// for the same spec and settings (issue #43). The count depends only on the compiled spec's text,
// the tool text the settings give (apiToolText) and the product module that lists and counts, so
// an entry is named by a SHA-256 of those three and read back for the same ones.
//
// What guards it: an entry holds only counts and the digest the Worker looks them up by (no
// setting, no secret); a forged one could only make the status page show a wrong count, yet it is
// read back only with a valid HMAC-SHA256 under the spec cache's per-user key (kept outside the
// cache folder) over its name and bytes, as the spec cache's entries are. The folder is 0700 and
// entries 0600, read through one descriptor that follows no link (a regular file of at most
// 1 MiB), written to a new file opened without following a link and renamed into place. Any
// failure means counting, never a failed start.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { ownFolder, pruneOwnFolder, readOwnFile, writeOwnFile } from "../private-files.mjs";
import { specCacheKey } from "./spec-cache-key.mjs";
import { fileSha256 } from "./file-digest.mjs";
import { specCacheFolder } from "./spec-cache.mjs";

/** Counts kept (a few hundred bytes to a few KB each). */
export const KEEP = 32;
/** The largest entry read back. */
const MAX_ENTRY_BYTES = 1024 * 1024;
/** Written into every entry and key. */
const LAYOUT = 1;

/** @typedef {{ tools: string[], tokens: number, perTool: Record<string, number>, digest: string }} ToolsListMeasure */

/**
 * The cache folder: `code-mode-mcp/tools-list` beside the spec cache's `code-mode-mcp/specs`.
 * @param {Record<string, string | undefined>} env - the launcher's environment
 * @param {NodeJS.Platform} [platform]
 */
export function toolsListCacheFolder(env, platform = process.platform) {
  return join(dirname(specCacheFolder(env, platform)), "tools-list");
}

/** @param {string} text */
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/**
 * The name of a count's entry.
 * @param {string} productFile - the product module that lists and counts (its bytes: `npm start`
 *   rebuilds it, same bytes, new file, before every start)
 * @param {string} specText - the compiled spec's text
 * @param {unknown} toolText - what the settings add to the tools' text (apiToolText)
 */
export function toolsListKey(productFile, specText, toolText) {
  return sha256(JSON.stringify([LAYOUT, fileSha256(productFile), sha256(specText), toolText]));
}

/** @param {unknown} m @returns {m is ToolsListMeasure} */
const isMeasure = (m) => {
  const x = /** @type {any} */ (m);
  return (
    Array.isArray(x?.tools) &&
    x.tools.every((/** @type {unknown} */ t) => typeof t === "string") &&
    Number.isInteger(x.tokens) &&
    typeof x.digest === "string" &&
    x.perTool !== null &&
    typeof x.perTool === "object" &&
    Object.values(x.perTool).every((n) => Number.isInteger(n))
  );
};

/**
 * Opens the count cache in `folder`, its entries authenticated with the key in `keyFile`.
 * @param {string} folder - {@link toolsListCacheFolder}
 * @param {string} keyFile - the user's cache key (spec-cache-key.mjs), outside `folder`
 * @param {{ now?: () => number }} [inject] - the clock (tests)
 */
export function openToolsListCache(folder, keyFile, inject = {}) {
  const now = inject.now ?? Date.now;
  /** @type {ReturnType<typeof specCacheKey> | null} null: not read yet */
  let secret = null;
  const userKey = () => (secret === null ? (secret = specCacheKey(keyFile)) : secret);
  /** @param {string} name @param {string} body */
  const mac = (name, body) =>
    createHmac("sha256", /** @type {any} */ (userKey())).update(`${name}\n${body}`).digest("hex");

  return {
    /**
     * The count kept under `key`, if written under the user's key.
     * @param {string} key - {@link toolsListKey}
     * @returns {ToolsListMeasure | undefined}
     */
    read(key) {
      try {
        const name = `${key}.json`;
        const path = join(folder, name);
        if (!existsSync(path) || !userKey()) return undefined;
        ownFolder(folder);
        const text = readOwnFile(path, MAX_ENTRY_BYTES)?.toString("utf8");
        if (text === undefined) return undefined;
        const newline = text.indexOf("\n");
        const [layout, tag] = text.slice(0, Math.max(0, newline)).split(" ");
        const body = text.slice(newline + 1);
        if (newline < 0 || layout !== String(LAYOUT) || !/^[0-9a-f]{64}$/.test(tag ?? ""))
          return undefined;
        if (!timingSafeEqual(Buffer.from(String(tag), "hex"), Buffer.from(mac(name, body), "hex")))
          return undefined;
        const measure = JSON.parse(body);
        return isMeasure(measure) ? measure : undefined;
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps a count under `key`.
     * @param {string} key - {@link toolsListKey}
     * @param {ToolsListMeasure} measure
     * @returns {boolean} whether it was kept
     */
    write(key, measure) {
      try {
        if (!userKey()) return false;
        ownFolder(folder);
        const name = `${key}.json`;
        const path = join(folder, name);
        const body = JSON.stringify({
          tools: measure.tools,
          tokens: measure.tokens,
          perTool: measure.perTool,
          digest: measure.digest,
        });
        const bytes = Buffer.from(`${LAYOUT} ${mac(name, body)}\n${body}`);
        writeOwnFile(path, [bytes]);
        prune(folder, now());
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Removes the least recently written entries past {@link KEEP}, and a killed write's temporary
 * files once a minute old; only regular files.
 * @param {string} folder
 * @param {number} now
 */
function prune(folder, now) {
  pruneOwnFolder(folder, { keep: KEEP, suffix: ".json", now });
}
