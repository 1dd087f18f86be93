// What the last launch with a SPEC_FILE gave its host runtime, kept so that the next launch can
// start that host while its launch check still works (cli/local-server/early-host.mjs; issue #43:
// a warm desktop launch waited for the check, then for the host's start, one after the other).
//
// A memo says where each of the host's bindings came from, never a setting's value: a binding
// whose value was the launcher's environment variable of that name is kept as `["env"]` (its
// value read from this launch's environment again: secrets are never written), the compiled spec
// as `["spec", name]` (its text read from the spec cache again), and the others (the spec's name, the tools/list counts, operator skills) as
// `["text", value]`. The memo only guesses: the host started from it is used only when the launch
// check's plan gives exactly the same host (early-host.mjs), else it is ended and the planned one
// started, so a stale or wrong memo costs one wasted start, never a wrong server.
//
// Kept as the spec cache keeps its entries (cli/private-files.mjs: folder 0700, files 0600, read
// through one descriptor without following a link, written whole and renamed), under an
// HMAC-SHA256 with the user's cache key (cli/kept/spec-cache-key.mjs) over the entry's name and its
// bytes: a memo edited or written by anything else is not read.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ownFolder, pruneOwnFolder, readOwnFile, writeOwnFile } from "../private-files.mjs";
import { specCacheKey } from "./spec-cache-key.mjs";
import { specCacheFolder } from "./spec-cache.mjs";

/** Memos kept: one per spec file and set of settings a user launches with. */
export const KEEP = 8;
/** Written into every memo; a memo of another layout is not read. */
const LAYOUT = 1;
/** The largest memo read back: the bindings' literal values are at most {@link MAX_TEXT_CHARS}. */
const MAX_MEMO_BYTES = 4 * 1024 * 1024;
/** Literal values in all past which no memo is kept (operator skills can be large). */
export const MAX_TEXT_CHARS = 1024 * 1024;

/**
 * @typedef {["env"] | ["spec", string] | ["text", string]} Source - where a binding's value
 *   comes from: this launch's environment variable of its name; SPEC_FILE's compiled spec in the
 *   spec cache, as `{<that name>: spec}`; the value itself
 * @typedef {{ runners: number, bindings: [string, Source][] }} LaunchMemo
 */

/**
 * The memos' folder: `code-mode-mcp/launch` beside the spec cache's `code-mode-mcp/specs`.
 * @param {Record<string, string | undefined>} env - the launcher's environment
 */
export const launchMemoFolder = (env) => join(dirname(specCacheFolder(env)), "launch");

/** @param {string | Uint8Array} bytes */
export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * The memo of a planned launch, or undefined when it cannot be one (a large literal value).
 * @param {{ runners: number, bindings: Record<string, string>, launchSpec?: { binding: string, name: string } }} plan
 * @param {Record<string, string | undefined>} env - the environment the launch was planned from
 * @returns {LaunchMemo | undefined}
 */
export function memoOfPlan(plan, env) {
  /** @type {[string, Source][]} */
  const bindings = [];
  let literal = 0;
  for (const [name, value] of Object.entries(plan.bindings)) {
    if (env[name] === value) bindings.push([name, ["env"]]);
    else if (plan.launchSpec?.binding === name)
      bindings.push([name, ["spec", plan.launchSpec.name]]);
    else {
      literal += value.length;
      if (literal > MAX_TEXT_CHARS) return undefined;
      bindings.push([name, ["text", value]]);
    }
  }
  return { runners: plan.runners, bindings };
}

/**
 * Whether `value` is a {@link LaunchMemo} as {@link memoOfPlan} writes one.
 * @param {unknown} value
 * @returns {value is LaunchMemo}
 */
function isMemo(value) {
  const memo = /** @type {any} */ (value);
  return (
    Number.isInteger(memo?.runners) &&
    memo.runners >= 0 &&
    Array.isArray(memo.bindings) &&
    memo.bindings.every(
      (/** @type {any} */ b) =>
        Array.isArray(b) &&
        typeof b[0] === "string" &&
        Array.isArray(b[1]) &&
        ((b[1].length === 1 && b[1][0] === "env") ||
          (b[1].length === 2 && b[1][0] === "text" && typeof b[1][1] === "string") ||
          (b[1].length === 2 && b[1][0] === "spec" && typeof b[1][1] === "string")),
    )
  );
}

/**
 * The variables a memo's bindings are read from, sorted.
 * @param {LaunchMemo} memo
 * @returns {string[]}
 */
const envNames = (memo) =>
  memo.bindings
    .filter(([, source]) => source[0] === "env")
    .map(([name]) => name)
    .toSorted();

/** @param {string} path */
const mtimeOf = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

/**
 * Opens the memos in `folder`, authenticated with the key in `keyFile`.
 * @param {string} folder - beside the spec cache (`code-mode-mcp/launch`)
 * @param {string} keyFile - the user's cache key (spec-cache-key.mjs)
 */
export function openLaunchMemos(folder, keyFile) {
  /** @type {Buffer | undefined | null} null: not read yet */
  let key = null;
  const userKey = () => (key === null ? (key = specCacheKey(keyFile)) : key);
  /** @param {string | undefined} specFile */
  const prefixOf = (specFile) => sha256(JSON.stringify([LAYOUT, specFile ?? null]));
  /**
   * A memo's file: its spec file's, and the variables its bindings are read from (a launch
   * with other settings for the same spec keeps a memo of its own beside it).
   * @param {string | undefined} specFile
   * @param {LaunchMemo} memo
   */
  const nameOf = (specFile, memo) =>
    `${prefixOf(specFile)}.${sha256(JSON.stringify(envNames(memo))).slice(0, 16)}.json`;
  /** @param {Buffer} secret @param {string} name @param {Uint8Array} body */
  const mac = (secret, name, body) =>
    createHmac("sha256", secret).update(`${name}\n`).update(body).digest("hex");
  /**
   * The memo in `name`, if it was written under `secret` (its name among what the MAC covers).
   * @param {Buffer} secret
   * @param {string} name
   * @returns {LaunchMemo | undefined}
   */
  const readOne = (secret, name) => {
    const bytes = readOwnFile(join(folder, name), MAX_MEMO_BYTES);
    if (bytes === undefined) return undefined;
    const newline = bytes.indexOf(10);
    if (newline < 0) return undefined;
    const [layout, tag] = bytes.subarray(0, newline).toString("latin1").split(" ");
    if (layout !== String(LAYOUT) || !/^[0-9a-f]{64}$/.test(tag ?? "")) return undefined;
    const body = bytes.subarray(newline + 1);
    const expected = Buffer.from(mac(secret, name, body), "hex");
    if (!timingSafeEqual(Buffer.from(String(tag), "hex"), expected)) return undefined;
    const memo = JSON.parse(body.toString("utf8"));
    return isMemo(memo) ? memo : undefined;
  };
  return {
    folder,
    /**
     * The memo of the last launch with `specFile`, if one was written under the user's key:
     * of those kept for it (one per set of variables read), the one whose variables are all
     * set in `env` and that reads the most of them (without `env`, the newest).
     * @param {string | undefined} specFile - absolute path (undefined: launches without one)
     * @param {Record<string, string | undefined>} [env] - this launch's environment
     * @returns {LaunchMemo | undefined}
     */
    read(specFile, env) {
      try {
        const prefix = `${prefixOf(specFile)}.`;
        if (!existsSync(folder)) return undefined;
        // As the caches' reads: not from a folder others may write (they could rename, link or
        // keep old memos there); ownFolder throws then, and nothing is read.
        ownFolder(folder);
        const names = readdirSync(folder).filter(
          (name) => name.startsWith(prefix) && name.endsWith(".json"),
        );
        if (names.length === 0) return undefined;
        const secret = userKey();
        if (!secret) return undefined;
        /** @type {{ memo: LaunchMemo, names: number, at: number }[]} */
        const usable = [];
        for (const name of names) {
          const memo = readOne(secret, name);
          if (!memo || (env && !envNames(memo).every((n) => typeof env[n] === "string"))) continue;
          usable.push({ memo, names: envNames(memo).length, at: mtimeOf(join(folder, name)) });
        }
        // The one that reads the most of this launch's variables: a memo of fewer settings
        // is another launch's whose settings are a part of these. Then the newest.
        usable.sort((a, b) => b.names - a.names || b.at - a.at);
        return usable[0]?.memo;
      } catch {
        return undefined;
      }
    },
    /**
     * Keeps `memo` for the next launch with `specFile`, unless it is larger than a memo read
     * back can be (then none is kept for it). Never throws: a memo not kept only means the
     * next launch starts its host after its check.
     * @param {string | undefined} specFile
     * @param {LaunchMemo} memo
     * @returns {boolean} whether it was kept
     */
    write(specFile, memo) {
      try {
        const secret = userKey();
        if (!secret) return false;
        ownFolder(folder);
        const name = nameOf(specFile, memo);
        const body = Buffer.from(JSON.stringify(memo), "utf8");
        const header = Buffer.from(`${LAYOUT} ${mac(secret, name, body)}\n`);
        if (header.length + body.length > MAX_MEMO_BYTES) {
          // Never read back ({@link MAX_MEMO_BYTES}: literal values under MAX_TEXT_CHARS can
          // spell more bytes, control characters six each): it was written again every launch.
          // An older memo of this spec file describes an older launch: it goes too.
          rmSync(join(folder, name), { force: true });
          return false;
        }
        writeOwnFile(join(folder, name), [header, body]);
        pruneOwnFolder(folder, { keep: KEEP, suffix: ".json", now: Date.now() });
        return true;
      } catch {
        return false;
      }
    },
  };
}
