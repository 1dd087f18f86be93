/**
 * workerd configurations kept between launches. Building one takes a Node process that loads
 * Miniflare (~0.8 s of CPU) and builds (~0.5–2 s more for the host's): a desktop launch paid it on
 * every start with nothing changed (issue #43). A configuration is built from a template with a
 * slot for every value of a launch (config-template.mjs): it holds no setting, no secret, no spec,
 * no folder of a launch, and a launch with the same inputs reads it back instead of building it.
 *
 * **Key.** An entry's name is a SHA-256 of everything the build reads: the template options (the
 * binding names among them), the V8 flags, the builder's environment (but its temporary folder),
 * every file in each Worker's modules folder (the bundles Miniflare embeds: their bytes),
 * Miniflare's module (its path, size, time and package.json), the builder's own source (its
 * bytes), Node's version and this layout. workerd's binary is
 * checked on read (its size and time as written).
 *
 * **Trust.** An entry is what workerd runs (every Worker's code, workerd's path and command line),
 * so it is read back only with a valid HMAC-SHA256 under the user's key (the spec cache's,
 * cli/kept/spec-cache-key.mjs, kept outside the cache folder) over the entry's name and all its bytes:
 * an entry edited, written by anything else or moved under another name is built anew. What
 * carries a credential is never read from an entry: the bindings, the folders and Miniflare's
 * proxy secret are this launch's own, put into the slots (runtime-config.mjs). The folder is 0700
 * and entries 0600 (cli/private-files.mjs), read through one descriptor opened without following
 * a link or waiting on a FIFO, a regular file of at most what its inputs can build
 * ({@link entryBound}: refused from its size, with a warning, before a byte is read); written to a
 * fresh file (never through a link planted at its name) and renamed into place. The least
 * recently used beyond {@link KEEP} are removed. A failure to read or write only means a build:
 * the cache never stops a start.
 *
 * Layout of an entry: `<LAYOUT> <hmac hex>\n<header JSON>\n<configuration bytes>`.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, lutimesSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ownFolder, pruneOwnFolder, readOwnFile, writeOwnFile } from "../../private-files.mjs";
import { fileSha256 } from "../../kept/file-digest.mjs";
import { specCacheKey } from "../../kept/spec-cache-key.mjs";
import { specCacheFolder } from "../../kept/spec-cache.mjs";

/** @typedef {ReturnType<typeof Buffer.alloc>} Bytes Node's Buffer (as `Buffer.alloc` gives it) */

/** Configurations kept: a host's and a runner's per set of binding names and build. */
export const KEEP = 8;
/**
 * The most any entry is read of, whatever its inputs: the host's configuration is ~6 MB (its
 * 4.9 MB bundle and Miniflare's own Workers). Each read is bounded tighter by its inputs
 * ({@link entryBound}).
 */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/**
 * What a configuration holds beyond its Workers' modules and options: Miniflare's own Workers and
 * the Cap'n Proto framing (~1 MB measured: 5.86 MB for the host's 4.9 MB of modules, 0.99 MB for
 * a runner), with room to spare for Miniflare's growth.
 */
const BUILD_BYTES = 8 * 1024 * 1024;
/** Written into every entry and into every key. */
const LAYOUT = 1;

/**
 * @typedef {object} KeptConfig
 * @property {string} command - workerd's path
 * @property {string[]} args - workerd's command line as Miniflare built it
 * @property {Bytes} config - the configuration with its slots (config-template.mjs)
 * @property {string[]} folders - folders the configuration names, with their slots (made before
 *   workerd starts: Miniflare made them while building)
 */

/**
 * The cache folder: `code-mode-mcp/workerd` beside the spec cache's `code-mode-mcp/specs`.
 * @param {Record<string, string | undefined>} env - the launcher's environment
 * @param {NodeJS.Platform} [platform]
 */
export function configCacheFolder(env, platform = process.platform) {
  return join(dirname(specCacheFolder(env, platform)), "workerd");
}

/** @param {Bytes | string} bytes */
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * Size, time and bytes of a file, as a key part. Its hash once per process: the host's and a
 * runner's configurations share a modules folder (the 4.8 MB Worker bundle among it), and the
 * launch check hashed the product module before (file-digest.mjs).
 * @param {string} file
 */
function fileId(file) {
  const { size, mtimeMs } = statSync(file);
  return `${file} ${size} ${mtimeMs} ${fileSha256(file)}`;
}

/**
 * A package's module as a key part: its path, size and time, and its package.json's bytes (its
 * version). Not its bytes: Miniflare's module is ~5 MB, hashed on every launch for nothing.
 * @param {string} file
 */
function packageFileId(file) {
  const { size, mtimeMs } = statSync(file);
  let folder = dirname(file);
  for (let up = 0; up < 6 && !existsSync(join(folder, "package.json")); up++)
    folder = dirname(folder);
  const manifest = join(folder, "package.json");
  return `${file} ${size} ${mtimeMs} ${existsSync(manifest) ? sha256(readFileSync(manifest)) : ""}`;
}

/**
 * Hashes of a folder's files by folder, reused while every file's size and time are the same
 * (a host and its runners read the same ~5 MB bundle folder in one launch).
 * @type {Map<string, { stats: string, ids: string[] }>}
 */
const folderMemo = new Map();

/**
 * Every regular file under `folder` (a Worker's modules folder), sorted, with its bytes' hash.
 * @param {string} folder
 * @returns {string[]}
 */
function folderIds(folder) {
  const files = readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .toSorted();
  const stats = files
    .map((path) => {
      const { size, mtimeMs, ino } = statSync(path);
      return `${path} ${size} ${mtimeMs} ${ino}`;
    })
    .join("\n");
  const memo = folderMemo.get(folder);
  if (memo?.stats === stats) return memo.ids;
  const ids = files.map((path) => `${path} ${sha256(readFileSync(path))}`);
  folderMemo.set(folder, { stats, ids });
  return ids;
}

/** Miniflare's module, as the builder finds it (workerd-config-builder.mjs). */
function miniflareFile() {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve("wrangler/package.json")).resolve("miniflare");
}

const BUILDER = fileURLToPath(new URL("./workerd-config-builder.mjs", import.meta.url));

/**
 * The name of the entry for a build's inputs (see the header).
 * @param {object} inputs
 * @param {Record<string, unknown>} inputs.options - the template options
 * @param {string} inputs.v8Flags
 * @param {Record<string, string>} inputs.env - the builder's environment
 * @param {{ miniflare?: string, builder?: string }} [files] - Miniflare's module and the
 *   builder's source (tests give their own)
 * @returns {string}
 */
export function configKey({ options, v8Flags, env }, files = {}) {
  const { TMPDIR: _tmp, ...stable } = env;
  const folders = moduleFolders(options);
  return sha256(
    JSON.stringify([
      LAYOUT,
      process.version,
      options,
      v8Flags,
      Object.entries(stable).toSorted(([a], [b]) => (a < b ? -1 : 1)),
      folders.map((folder) => folderIds(folder)),
      packageFileId(files.miniflare ?? miniflareFile()),
      fileId(files.builder ?? BUILDER),
    ]),
  );
}

/**
 * The most an entry built from `options` can be: its Workers' modules (their files' sizes), the
 * options themselves and what Miniflare adds ({@link BUILD_BYTES}); at most
 * {@link MAX_ENTRY_BYTES}. A larger file under the entry's name was not written by this build:
 * it is refused from its size, before its HMAC could refuse it (a planted 256 MiB file was read
 * whole first).
 * @param {Record<string, unknown>} options - the template options
 * @returns {number}
 */
export function entryBound(options) {
  let bytes = BUILD_BYTES + Buffer.byteLength(JSON.stringify(options));
  for (const folder of moduleFolders(options))
    for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true }))
      if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  return Math.min(bytes, MAX_ENTRY_BYTES);
}

/**
 * The folders of the options' Workers' modules (what Miniflare embeds), sorted.
 * @param {Record<string, unknown>} options
 * @returns {string[]}
 */
function moduleFolders(options) {
  const workers = /** @type {any[]} */ (options.workers ?? []);
  return [
    ...new Set(workers.map((w) => String(w.modulesRoot ?? dirname(String(w.scriptPath))))),
  ].toSorted();
}

/**
 * The MAC of an entry: HMAC-SHA256 under the user's key over its name, header and configuration.
 * @param {Bytes} key
 * @param {string} name
 * @param {Bytes} header
 * @param {Bytes} config
 * @returns {Bytes}
 */
const mac = (key, name, header, config) =>
  createHmac("sha256", key).update(`${name}\n`).update(header).update("\n").update(config).digest();

/**
 * Opens the configuration cache in `folder`, its entries authenticated with the key in `keyFile`.
 * @param {string} folder - {@link configCacheFolder}
 * @param {string} keyFile - the user's cache key (spec-cache-key.mjs), outside `folder`
 * @param {{ now?: () => number, warn?: (line: string) => void }} [inject] - the clock (tests);
 *   where to say that an entry was refused for its size (a file this launcher did not write)
 */
export function openConfigCache(folder, keyFile, inject = {}) {
  const now = inject.now ?? Date.now;
  const warn = inject.warn ?? (() => {});
  /** @type {Buffer | undefined | null} null: not read yet */
  let secret = null;
  const userKey = () => (secret === null ? (secret = specCacheKey(keyFile)) : secret);

  return {
    folder,
    /**
     * The configuration kept for `key`, if there is one written under the user's key and its
     * workerd is the one it was built for.
     * @param {string} key - {@link configKey}
     * @param {number} [maxBytes] - the most its entry can be ({@link entryBound} of its options)
     * @returns {KeptConfig | undefined}
     */
    read(key, maxBytes = MAX_ENTRY_BYTES) {
      try {
        const path = join(folder, `${key}.bin`);
        if (!existsSync(path)) return undefined;
        ownFolder(folder);
        const userSecret = userKey();
        if (!userSecret) return undefined;
        const bytes = readOwnFile(path, Math.min(maxBytes, MAX_ENTRY_BYTES), (size) =>
          warn(
            `workerd configuration cache: ${path} is ${size} bytes, more than a configuration built from these modules can be (${maxBytes}); not read, built anew in its place. Nothing to fix; deleting ${folder} is always safe.`,
          ),
        );
        if (!bytes) return undefined;
        const first = bytes.indexOf(10);
        const second = first < 0 ? -1 : bytes.indexOf(10, first + 1);
        if (second < 0) return undefined;
        const [layout, tag] = bytes.subarray(0, first).toString("latin1").split(" ");
        if (layout !== String(LAYOUT) || !/^[0-9a-f]{64}$/.test(tag ?? "")) return undefined;
        const header = bytes.subarray(first + 1, second);
        const config = bytes.subarray(second + 1);
        const expected = mac(userSecret, `${key}.bin`, header, config);
        if (!timingSafeEqual(Buffer.from(String(tag), "hex"), expected)) return undefined;
        const h = JSON.parse(header.toString("utf8"));
        if (
          typeof h?.command !== "string" ||
          !Array.isArray(h.args) ||
          !Array.isArray(h.folders) ||
          ![...h.args, ...h.folders].every((s) => typeof s === "string")
        )
          return undefined;
        // workerd updated in place since: built anew.
        const { size, mtimeMs } = statSync(h.command);
        if (size !== h.commandSize || mtimeMs !== h.commandMtimeMs) return undefined;
        const at = new Date(now());
        // The entry's own times (lutimes): a link planted here after the read touches nothing else.
        lutimesSync(path, at, at);
        return { command: h.command, args: h.args, config, folders: h.folders };
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps a configuration under `key`.
     * @param {string} key - {@link configKey}
     * @param {KeptConfig} kept
     * @returns {boolean} whether it was kept
     */
    write(key, kept) {
      try {
        const userSecret = userKey();
        if (!userSecret) return false;
        ownFolder(folder);
        const name = `${key}.bin`;
        const { size, mtimeMs } = statSync(kept.command);
        const header = Buffer.from(
          JSON.stringify({
            command: kept.command,
            args: kept.args,
            commandSize: size,
            commandMtimeMs: mtimeMs,
            folders: kept.folders,
          }),
        );
        const tag = mac(userSecret, name, header, kept.config).toString("hex");
        const path = join(folder, name);
        writeOwnFile(path, [
          Buffer.from(`${LAYOUT} ${tag}\n`),
          header,
          Buffer.from("\n"),
          kept.config,
        ]);
        prune(folder, now());
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Removes the least recently used entries past {@link KEEP}, and temporary files a killed launch
 * left once they are a minute old; never follows, counts or removes anything but regular files.
 * @param {string} folder
 * @param {number} now
 */
function prune(folder, now) {
  pruneOwnFolder(folder, { keep: KEEP, suffix: ".bin", now });
}
