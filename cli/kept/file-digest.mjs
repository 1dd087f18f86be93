// A file's SHA-256, computed once per process. The product module (~7 MB) names the compiled
// specs it compiled (spec-cache.mjs) and the tools/list counts it made (tools-list-cache.mjs):
// a launch check hashed it once for each, ~20 ms of a desktop launch (issue #43). A spec file
// (4–13 MB) names its compiled entry and, under `--stdio`, the kept `initialize` answer
// (early-answers.mjs): the launcher hashes it once for both, and hands both digests to the launch
// check's process (plan-in-process.mjs), which hashed them again.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

/**
 * A file's digest as this process knows it: good while the file keeps its size and time.
 * @typedef {{ file: string, size: number, mtimeMs: number, digest: string }} KnownDigest
 */

/** @type {Map<string, { size: number, mtimeMs: number, digest: string }>} */
const digests = new Map();

/**
 * The hex SHA-256 of `file`'s bytes; computed again when its size or time changed since.
 * @param {string} file
 * @returns {string}
 */
export function fileSha256(file) {
  const { size, mtimeMs } = statSync(file);
  const known = digests.get(file);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.digest;
  const digest = createHash("sha256").update(readFileSync(file)).digest("hex");
  digests.set(file, { size, mtimeMs, digest });
  return digest;
}

/**
 * The digests of `files`, hashed now unless known: for another process of this launch that
 * hashes them too ({@link rememberDigests}). A file that cannot be read is left out (whoever
 * needs it says why).
 * @param {(string | undefined)[]} files
 * @returns {KnownDigest[]}
 */
export function digestsOf(files) {
  /** @type {KnownDigest[]} */
  const known = [];
  for (const file of files) {
    if (file === undefined) continue;
    try {
      fileSha256(file);
    } catch {
      continue;
    }
    const entry = digests.get(file);
    if (entry) known.push({ file, ...entry });
  }
  return known;
}

/**
 * Takes digests another process computed ({@link digestsOf}) as this process's own. Each still
 * holds only while its file keeps the size and time it was hashed at, as one computed here.
 * Only for digests from a process trusted as this one is (its own launcher): a wrong one names
 * a wrong kept entry.
 * @param {unknown} known - anything not a list of {@link KnownDigest} is ignored
 */
export function rememberDigests(known) {
  if (!Array.isArray(known)) return;
  for (const entry of known) {
    const { file, size, mtimeMs, digest } = entry ?? {};
    if (
      typeof file === "string" &&
      Number.isFinite(size) &&
      Number.isFinite(mtimeMs) &&
      typeof digest === "string" &&
      /^[0-9a-f]{64}$/.test(digest)
    )
      digests.set(file, { size, mtimeMs, digest });
  }
}
