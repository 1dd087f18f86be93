/**
 * The identity of a runtime's message as one digest (runtime.mjs keys the configuration it builds
 * for a message by it; early-host.mjs compares the host it started early with the planned one by
 * it), cheap for a message that holds the compiled spec (~4 MB) again and again.
 */
import { createHash } from "node:crypto";

/**
 * A digest of `value` as JSON: two values with the same one are the same (the configuration
 * built for one message is reused for the other; early-host.mjs takes a started host for the
 * planned one). Long strings (the compiled spec, ~4 MB, in a binding) go in by their own digest:
 * stringified, a JSON text inside JSON is escaped character by character (issue #43: ~0.2 s a
 * launch). A short string that starts with "#" goes in with one more "#": else a binding whose
 * value spelled "#" and a long value's digest stood for that long value, and a runtime started
 * with the configuration built for the other.
 * @param {unknown} value
 * @returns {string}
 */
export function jsonDigest(value) {
  return sha256(
    JSON.stringify(value, (_name, item) =>
      typeof item !== "string"
        ? item
        : item.length > 4_096
          ? `#${longDigest(item)}`
          : item.startsWith("#")
            ? `#${item}`
            : item,
    ),
  );
}

/** @param {string} text */
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** Long strings' digests, the newest last (see {@link longDigest}). */
const longDigests = new Map();

/**
 * The digest of a long string, kept for the last two: a warm launch took the host message's
 * digest for its configuration's key, for the early host, and for the planned message it is
 * compared with (early-host.mjs), each time hashing the 4 MB spec in it again (~25–60 ms of a
 * loaded machine each, issue #43). A long string's hash in V8 comes from its length, so a lookup
 * costs a comparison with the kept string of that length (by pointer when it is the same one).
 * The string last asked for is the one kept (an equal one's place taken), so no older copy of
 * the spec outlives the message that held it.
 * @param {string} text
 */
function longDigest(text) {
  const digest = longDigests.get(text) ?? sha256(text);
  longDigests.delete(text);
  longDigests.set(text, digest);
  for (const old of longDigests.keys()) {
    if (longDigests.size <= 2) break;
    longDigests.delete(old);
  }
  return digest;
}
