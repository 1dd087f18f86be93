// A file's SHA-256, computed once per process. The product module (~7 MB) names the compiled
// specs it compiled (spec-cache.mjs) and the tools/list counts it made (tools-list-cache.mjs):
// a launch check hashed it once for each, ~20 ms of a desktop launch (issue #43). A spec file
// (4–13 MB) names its compiled entry and, under `--stdio`, the kept `initialize` answer
// (early-answers.mjs): the launcher hashes it once for both.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

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
