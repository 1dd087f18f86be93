// A compiled SPEC_FILE kept between launches. Validating a big spec dominates a start: GitHub's
// REST spec (13 MB) took 34 s to bundle and validate under load and under a second to compile,
// and a desktop client starts the server on every launch with the same file. So a launch that
// compiled a spec keeps the compiled form in the user's cache folder, and the next launch with the
// same bytes, the same referenced files and the same product build reads it back (~0.2 s).
//
// An entry holds the compiled spec as the ASCII JSON text the host is given (cli/ascii-json.mjs),
// after a header line with what the launch check reads of it (its facts: the operations' and
// cycles' counts, its `servers`, whether it defines authentication): a warm launch neither
// parses nor stringifies the spec (issue #43: ~0.15 s of a desktop launch's critical path).
//
// What makes an entry valid: its name is a SHA-256 of the product module's bytes and the spec
// file's bytes, and it lists every other file the bundle read with its SHA-256, each checked on
// read. A spec that refers to anything but local files (an http $ref) is never kept: its content
// could change without this launcher seeing it. An entry holds only the compiled spec (no setting,
// no secret). Entries are written whole (a temporary file, then a rename: two launches may write
// at once), the least recently used beyond KEEP are removed, and any failure to read or write the
// cache only means a full compile: the cache can never stop a start.
//
// What makes an entry trusted: the compiled spec is everything the server does with the spec,
// its `servers` (the base URL API_TOKEN goes to when no API_BASE_URL is set) among it, so an entry
// is read back only with a valid HMAC-SHA256 under the user's own key, kept outside the cache
// folder (cli/kept/spec-cache-key.mjs), over the entry's name and its bytes (an entry moved under
// another spec's name fails too). Issue #40: an edited entry redirected the credential. The folder
// is 0700 and entries 0600 (cli/private-files.mjs), older ones tightened when found.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { isAscii } from "node:buffer";
import { existsSync, readFileSync, lutimesSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import {
  ownFolder,
  pruneOwnFolder,
  readOwnFile,
  tighten,
  writeOwnFile,
} from "../private-files.mjs";
import { fileSha256 } from "./file-digest.mjs";
import { specCacheKey } from "./spec-cache-key.mjs";

/** Compiled specs kept: a few specs a user switches between, each up to several MB. */
export const KEEP = 8;
/**
 * Written into every entry; an entry of another layout is not read (1: unauthenticated; 2: the
 * compiled spec inside the JSON of its entry).
 */
const LAYOUT = 3;

/**
 * The cache folder: `$XDG_CACHE_HOME/code-mode-mcp/specs` when XDG_CACHE_HOME is set, else the
 * platform's user cache folder (`~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows,
 * `~/.cache` elsewhere).
 * @param {Record<string, string | undefined>} env - the launcher's environment
 * @param {NodeJS.Platform} [platform]
 * @returns {string}
 */
export function specCacheFolder(env, platform = process.platform) {
  const base = env.XDG_CACHE_HOME?.trim()
    ? resolve(env.XDG_CACHE_HOME)
    : platform === "darwin"
      ? join(homedir(), "Library", "Caches")
      : platform === "win32"
        ? (env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"))
        : join(homedir(), ".cache");
  return join(base, "code-mode-mcp", "specs");
}

/** The largest entry read back: a compiled spec is a few MB; far more is not one of ours. */
export const MAX_ENTRY_BYTES = 128 * 1024 * 1024;

/** @param {Buffer | string} bytes */
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * @typedef {{ text: string, notes: string[], facts: Record<string, unknown> }} CompiledSpec
 *   text: the compact spec's ASCII JSON; facts: what the launch check reads of it (plain JSON)
 * @typedef {{ files: { path: string, sha256: string }[], notes: string[], facts: Record<string, unknown> }} Header
 */

/**
 * The MAC of an entry: HMAC-SHA256 under the user's key over the entry's file name and its body
 * (the header line and the spec's text).
 * @param {Buffer} key
 * @param {string} name - the entry's file name (binds the entry to its spec and product)
 * @param {Uint8Array} body
 */
const mac = (key, name, body) =>
  createHmac("sha256", key).update(`${name}\n`).update(body).digest("hex");

/**
 * Makes the cache folder 0700, or tightens it and the `code-mode-mcp` folder around it.
 * @param {string} folder
 */
function ownCacheFolder(folder) {
  ownFolder(folder);
  if (basename(dirname(folder)) === "code-mode-mcp") tighten(dirname(folder), 0o700);
}

/**
 * Opens the cache in `folder` for specs compiled by the product module at `productFile`, its
 * entries authenticated with the key in `keyFile`.
 * @param {string} folder - {@link specCacheFolder}
 * @param {string} productFile - the product module (its bytes identify the compiler)
 * @param {string} keyFile - the user's cache key, outside `folder` (spec-cache-key.mjs)
 */
export function openSpecCache(folder, productFile, keyFile) {
  /** @type {string | undefined} */
  let product;
  const productId = () => (product ??= fileSha256(productFile));
  /** @type {Buffer | undefined | null} null: not read yet */
  let key = null;
  const userKey = () => (key === null ? (key = specCacheKey(keyFile)) : key);
  /**
   * The spec file's digest is the process's one (file-digest.mjs): a `--stdio` launch names its
   * kept `initialize` answer by it too (early-answers.mjs), right after this read.
   * @param {string} file
   */
  const entryName = (file) => `${sha256(`${productId()}\n${fileSha256(file)}`)}.json`;

  return {
    folder,
    /**
     * The compiled form of `file` kept by an earlier launch, if it is still valid and was
     * written under the user's key.
     * @param {string} file - absolute path of the spec file
     * @returns {CompiledSpec | undefined}
     */
    read(file) {
      try {
        if (!existsSync(folder)) return undefined;
        ownCacheFolder(folder);
        const name = entryName(file);
        const path = join(folder, name);
        if (!existsSync(path)) return undefined;
        const secret = userKey();
        if (!secret) return undefined;
        const bytes = readOwnFile(path, MAX_ENTRY_BYTES);
        if (bytes === undefined) return undefined;
        const newline = bytes.indexOf(10);
        const [layout, tag] = bytes.subarray(0, Math.max(newline, 0)).toString("latin1").split(" ");
        if (newline < 0 || layout !== String(LAYOUT) || !/^[0-9a-f]{64}$/.test(tag ?? ""))
          return undefined;
        const body = bytes.subarray(newline + 1);
        if (
          !timingSafeEqual(
            Buffer.from(String(tag), "hex"),
            Buffer.from(mac(secret, name, body), "hex"),
          )
        )
          return undefined;
        const split = body.indexOf(10);
        if (split < 0) return undefined;
        /** @type {Header} */
        const header = JSON.parse(body.subarray(0, split).toString("utf8"));
        const spec = body.subarray(split + 1);
        if (
          !Array.isArray(header?.files) ||
          !Array.isArray(header.notes) ||
          header.facts === null ||
          typeof header.facts !== "object" ||
          !isAscii(spec)
        )
          return undefined;
        for (const { path: other, sha256: expected } of header.files)
          if (sha256(readFileSync(other)) !== expected) return undefined;
        const now = new Date();
        // The entry's own times (lutimes): a link planted here after the read touches nothing else.
        lutimesSync(path, now, now);
        // ASCII: one byte a character, as V8 keeps it (latin1 decodes it without a UTF-8 pass).
        return { text: spec.toString("latin1"), notes: header.notes, facts: header.facts };
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps the compiled form of `file`. Only specs whose every reference is a local file.
     * @param {string} file - absolute path of the spec file
     * @param {CompiledSpec & { files: string[], remote: boolean }} compiled - what the bundle read
     * @returns {boolean} whether it was kept (never a text that is not ASCII)
     */
    write(file, { text, notes, facts, files, remote }) {
      if (remote) return false;
      const spec = Buffer.from(text, "utf8");
      if (!isAscii(spec)) return false;
      try {
        const secret = userKey();
        if (!secret) return false;
        const main = resolve(file);
        const others = [...new Set(files.map((f) => resolve(f)))].filter((f) => f !== main);
        /** @type {Header} */
        const header = {
          files: others.map((path) => ({ path, sha256: sha256(readFileSync(path)) })),
          notes,
          facts,
        };
        ownCacheFolder(folder);
        const name = entryName(main);
        const path = join(folder, name);
        // JSON.stringify writes no raw line break: the header is one line.
        const body = Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), spec]);
        writeOwnFile(path, [Buffer.from(`${LAYOUT} ${mac(secret, name, body)}\n`), body]);
        prune(folder);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Removes the least recently used entries past {@link KEEP} (and temporary files a killed launch
 * left, once they are a minute old).
 * @param {string} folder
 */
function prune(folder) {
  pruneOwnFolder(folder, { keep: KEEP, suffix: ".json", now: Date.now() });
}
