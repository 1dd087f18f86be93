// A compiled SPEC_FILE kept between launches. Validating a big spec dominates a start: GitHub's
// REST spec (13 MB) took 34 s to bundle and validate under load and under a second to compile,
// and a desktop client starts the server on every launch with the same file. So a launch that
// compiled a spec keeps the compiled form in the user's cache folder, and the next launch with the
// same bytes, the same referenced files and the same product build reads it back (~0.2 s).
//
// What makes an entry valid: its name is a SHA-256 of the product module's bytes and the spec
// file's bytes, and it lists every other file the bundle read with its SHA-256, each checked on
// read. A spec that refers to anything but local files (an http $ref) is never kept: its content
// could change without this launcher seeing it. An entry holds only the compiled spec (no setting,
// no secret). Entries are written whole (a temporary file, then a rename: two launches may write
// at once), the least recently used beyond KEEP are removed, and any failure to read or write the
// cache only means a full compile: the cache can never stop a start.
import { createHash } from "node:crypto";
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Compiled specs kept: a few specs a user switches between, each up to several MB. */
export const KEEP = 8;
/** Written into every entry; an entry of another layout is not read. */
const LAYOUT = 1;

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

/** @param {Buffer | string} bytes */
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * @typedef {{ compact: unknown, notes: string[] }} CompiledSpec
 * @typedef {{ layout: number, files: { path: string, sha256: string }[], notes: string[], compact: unknown }} Entry
 */

/**
 * Opens the cache in `folder` for specs compiled by the product module at `productFile`.
 * @param {string} folder - {@link specCacheFolder}
 * @param {string} productFile - the product module (its bytes identify the compiler)
 */
export function openSpecCache(folder, productFile) {
  /** @type {string | undefined} */
  let product;
  const productId = () => (product ??= sha256(readFileSync(productFile)));
  /** @param {string} file */
  const entryPath = (file) =>
    join(folder, `${sha256(`${productId()}\n${sha256(readFileSync(file))}`)}.json`);

  return {
    folder,
    /**
     * The compiled form of `file` kept by an earlier launch, if it is still valid.
     * @param {string} file - absolute path of the spec file
     * @returns {CompiledSpec | undefined}
     */
    read(file) {
      try {
        const path = entryPath(file);
        /** @type {Entry} */
        const entry = JSON.parse(readFileSync(path, "utf8"));
        if (entry?.layout !== LAYOUT || !Array.isArray(entry.files)) return undefined;
        for (const { path: other, sha256: expected } of entry.files)
          if (sha256(readFileSync(other)) !== expected) return undefined;
        const now = new Date();
        utimesSync(path, now, now);
        return { compact: entry.compact, notes: entry.notes ?? [] };
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps the compiled form of `file`. Only specs whose every reference is a local file.
     * @param {string} file - absolute path of the spec file
     * @param {CompiledSpec & { files: string[], remote: boolean }} compiled - what the bundle read
     * @returns {boolean} whether it was kept
     */
    write(file, { compact, notes, files, remote }) {
      if (remote) return false;
      try {
        const main = resolve(file);
        const others = [...new Set(files.map((f) => resolve(f)))].filter((f) => f !== main);
        /** @type {Entry} */
        const entry = {
          layout: LAYOUT,
          files: others.map((path) => ({ path, sha256: sha256(readFileSync(path)) })),
          notes,
          compact,
        };
        mkdirSync(folder, { recursive: true });
        const path = entryPath(main);
        const temporary = `${path}.${process.pid}.tmp`;
        writeFileSync(temporary, JSON.stringify(entry));
        renameSync(temporary, path);
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
  const entries = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const { mtimeMs } = statSync(path);
    if (name.endsWith(".tmp")) {
      if (Date.now() - mtimeMs > 60_000) rmSync(path, { force: true });
    } else if (name.endsWith(".json")) entries.push({ path, mtimeMs });
  }
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path } of entries.slice(KEEP)) rmSync(path, { force: true });
}
