// The host's answer to `initialize`, kept from one `--stdio` launch for the next, so the bridge
// can answer a desktop client's `initialize` at once instead of after the host workerd's start
// (issue #43: a warm launch answered in 1.5–4 s, nearly all of it the host's start after the
// launch check). The answer depends on the Worker that gives it, the spec it serves, the settings
// and the route: an entry is named by an HMAC of all of these under the user's cache key, holds
// one answer per protocol version a client asked for, and is read back only under that name.
//
// What guards it, as the other kept files (cli/private-files.mjs): a 0700 folder of this user's
// alone, 0600 entries read through one descriptor that follows no link, an HMAC-SHA256 under the
// user's key (kept outside the folder) over the entry's name and bytes, so an entry edited or
// written by anything else is never read. No secret is ever written: the name is a keyed hash of
// the settings, and an answer that holds any setting's value is not kept (an `initialize` result
// holds the server's name and version and its capabilities; nothing of the user's).
// The bridge compares the early answer with the host's own once the host is up
// (cli/product/stdio-bridge.mjs): a stale entry costs one answer that the log names, never a
// second answer to one request.
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ownFolder, pruneOwnFolder, readOwnFile, writeOwnFile } from "../private-files.mjs";
import { fileSha256 } from "./file-digest.mjs";
import { specCacheKey, specCacheKeyFile } from "./spec-cache-key.mjs";
import { specCacheFolder } from "./spec-cache.mjs";

/** Entries kept: one per spec file, settings and route a user launches with. */
export const KEEP = 16;
/** The largest entry read back (an `initialize` result is a few hundred bytes). */
const MAX_ENTRY_BYTES = 256 * 1024;
/** Written into every entry and name; one of another layout is not read. */
const LAYOUT = 1;
/** Setting values shorter than this are words like `off`, not secrets worth looking for. */
const SHORTEST_SECRET = 8;

/**
 * @typedef {{ protocolVersion: string, capabilities: Record<string, unknown>, serverInfo: { name: string, version: string }, instructions?: string }} InitializeResult
 * @typedef {Record<string, InitializeResult>} EarlyAnswers - by the protocol version the client
 *   asked for
 * @typedef {{ kept: EarlyAnswers | undefined, keep: (answers: EarlyAnswers) => void }} EarlyAnswersOf
 *   - what a launch answers early, and how it keeps the host's answers for the next one
 * @typedef {object} AnswerInputs - everything the host's `initialize` answer depends on
 * @property {string[]} workerFiles - the prebuilt Worker's files and the product module (by their bytes)
 * @property {string | undefined} specFile - SPEC_FILE, absolute (by its path and bytes)
 * @property {Record<string, string | undefined>} env - the launch's settings
 * @property {(name: string) => boolean} isSetting - which of `env` change the answer: the
 *   product's and the launcher's settings (cli/product/stdio-entry.mjs)
 * @property {string} route - the MCP route the bridge serves (/mcp or /mcp/code)
 */

/**
 * The folder: `code-mode-mcp/answers` beside the spec cache's `code-mode-mcp/specs`.
 * @param {Record<string, string | undefined>} env - the launcher's environment
 */
export const earlyAnswersFolder = (env) => join(dirname(specCacheFolder(env)), "answers");

/**
 * The settings of `env` that change the answer, sorted by name.
 * @param {AnswerInputs} inputs
 * @returns {[string, string][]}
 */
const settingsOf = ({ env, isSetting }) =>
  Object.entries(env)
    .filter(/** @returns {e is [string, string]} */ (e) => e[1] !== undefined && isSetting(e[0]))
    .toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Whether `value` is an `initialize` result as a host gives one.
 * @param {unknown} value
 * @returns {value is InitializeResult}
 */
export function isInitializeResult(value) {
  if (!isObject(value) || typeof value.protocolVersion !== "string") return false;
  const info = value.serverInfo;
  return (
    isObject(value.capabilities) &&
    isObject(info) &&
    typeof info.name === "string" &&
    typeof info.version === "string" &&
    (value.instructions === undefined || typeof value.instructions === "string")
  );
}

/** @param {unknown} value @returns {value is EarlyAnswers} */
const isAnswers = (value) => isObject(value) && Object.values(value).every(isInitializeResult);

/**
 * Opens the kept answers in `folder`, named and authenticated with the key in `keyFile`.
 * @param {string} folder - {@link earlyAnswersFolder}
 * @param {string} keyFile - the user's cache key (spec-cache-key.mjs), outside `folder`
 * @param {{ uid?: number, now?: () => number }} [inject] - this user's id and the clock (tests)
 */
export function openEarlyAnswers(folder, keyFile, inject = {}) {
  const now = inject.now ?? Date.now;
  /** @type {ReturnType<typeof specCacheKey> | null} null: not read yet */
  let secret = null;
  const userKey = () => (secret === null ? (secret = specCacheKey(keyFile)) : secret);
  /** @param {string} text */
  const mac = (text) =>
    createHmac("sha256", /** @type {Buffer} */ (userKey())).update(text).digest("hex");
  /** @param {string} path */
  const own = (path) => ownFolder(path, "uid" in inject ? inject.uid : process.getuid?.());

  return {
    folder,
    /**
     * The entry's name for these inputs: a keyed hash (settings may be secrets), or undefined
     * when the user's key or a file cannot be read (then nothing is answered early).
     * @param {AnswerInputs} inputs
     * @returns {string | undefined}
     */
    nameOf(inputs) {
      try {
        if (!userKey()) return undefined;
        const files = inputs.workerFiles.map((file) => [file, fileSha256(file)]);
        const spec = inputs.specFile
          ? [inputs.specFile, fileSha256(inputs.specFile)]
          : [null, null];
        const all = [LAYOUT, files, spec, settingsOf(inputs), inputs.route];
        return `${mac(`name\n${JSON.stringify(all)}`)}.json`;
      } catch {
        return undefined;
      }
    },
    /**
     * The answers kept under `name`, if written under the user's key in a folder of this
     * user's alone.
     * @param {string} name - {@link nameOf}
     * @returns {EarlyAnswers | undefined}
     */
    read(name) {
      try {
        const path = join(folder, name);
        if (!existsSync(path) || !userKey()) return undefined;
        own(folder);
        const bytes = readOwnFile(path, MAX_ENTRY_BYTES);
        if (bytes === undefined) return undefined;
        const newline = bytes.indexOf(10);
        if (newline < 0) return undefined;
        const [layout, tag] = bytes.subarray(0, newline).toString("latin1").split(" ");
        if (layout !== String(LAYOUT) || !/^[0-9a-f]{64}$/.test(tag ?? "")) return undefined;
        const body = bytes.subarray(newline + 1).toString("utf8");
        const expected = Buffer.from(mac(`${name}\n${body}`), "hex");
        if (!timingSafeEqual(Buffer.from(String(tag), "hex"), expected)) return undefined;
        const answers = JSON.parse(body);
        return isAnswers(answers) ? answers : undefined;
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps `answers` under `name`, unless one of them holds a setting's value (a secret, maybe).
     * Never throws: answers not kept only mean the next launch answers after the host's start.
     * @param {string} name - {@link nameOf}
     * @param {EarlyAnswers} answers
     * @param {Record<string, string | undefined>} env - the launch's settings, not to be written
     * @returns {boolean} whether they were kept
     */
    write(name, answers, env) {
      try {
        if (!userKey() || !isAnswers(answers)) return false;
        const body = JSON.stringify(answers);
        for (const value of Object.values(env))
          if (
            typeof value === "string" &&
            value.length >= SHORTEST_SECRET &&
            (body.includes(value) || body.includes(JSON.stringify(value).slice(1, -1)))
          )
            return false;
        own(folder);
        const bytes = Buffer.from(`${LAYOUT} ${mac(`${name}\n${body}`)}\n${body}`, "utf8");
        if (bytes.length > MAX_ENTRY_BYTES) return false;
        writeOwnFile(join(folder, name), [bytes]);
        pruneOwnFolder(folder, { keep: KEEP, suffix: ".json", now: now() });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * What a `--stdio` launch answers early, and how it keeps the host's answers for the next one.
 * @param {object} options
 * @param {Record<string, string | undefined>} options.env - the launch's environment and flags
 *   (with the bridge's key: cli/local-server/stdio-caller-key.mjs)
 * @param {string} options.route - the MCP route the bridge serves
 * @param {string[]} options.workerFiles - the prebuilt Worker's files and the product module
 * @param {(name: string) => boolean} options.isSetting - the product's and the launcher's
 *   settings (cli/product/stdio-entry.mjs)
 * @returns {EarlyAnswersOf}
 */
export function earlyAnswersOf({ env, route, workerFiles, isSetting }) {
  // Operator skills are files the check reads and may refuse: not part of the key, so a launch
  // with them answers after its check, as before.
  if (env.SKILLS_DIR) return { kept: undefined, keep: () => {} };
  const store = openEarlyAnswers(earlyAnswersFolder(env), specCacheKeyFile(env));
  const specFile = env.SPEC_FILE ? resolve(env.SPEC_FILE) : undefined;
  const name = store.nameOf({ workerFiles, specFile, env, isSetting, route });
  if (name === undefined) return { kept: undefined, keep: () => {} };
  /** @type {Record<string, string | undefined>} */
  const settings = Object.fromEntries(settingsOf({ workerFiles, specFile, env, isSetting, route }));
  return {
    kept: store.read(name),
    // After the answer it keeps went out: the next launch's, off this one's path.
    keep: (answers) => void setImmediate(() => store.write(name, answers, settings)),
  };
}
