/**
 * V8 flags for every local workerd (npm start, the vitest pool, the e2e runs), passed through
 * Miniflare's `MINIFLARE_WORKERD_V8_FLAGS` (space separated).
 *
 * With them, a regular expression that backtracks more than 50,000 times in one match attempt is
 * re-run on V8's linear-time engine: `/(a+)+$/.test("a".repeat(40) + "!")` answers at once instead
 * of blocking the one workerd thread (and every client) for hours. 50,000 is V8's own default for
 * the threshold: a few milliseconds of backtracking, far above what a sane pattern needs on one
 * input, so ordinary regexes never switch engines; a lower value gains no safety (a run can loop
 * over many such attempts either way, which the operation budget and the supervisor handle).
 *
 * The linear engine only takes what it supports: no `i`, `u` or `v` flag, no backreferences, no
 * lookaround. Other patterns still backtrack; the `npm start` supervisor is the backstop there.
 */

/** The flags this project adds. */
export const REGEXP_FALLBACK_FLAGS = [
  "--enable-experimental-regexp-engine-on-excessive-backtracks",
  "--regexp-backtracks-before-fallback=50000",
];

/**
 * The value for `MINIFLARE_WORKERD_V8_FLAGS`: the user's own flags first, then ours unless the
 * user already set the same flag (their value wins).
 * @param {string | undefined} existing - the current value of the variable
 * @returns {string}
 */
export function workerdV8Flags(existing) {
  return withFlags(existing, REGEXP_FALLBACK_FLAGS);
}

/**
 * `existing` (space separated) followed by each of `added` whose name it does not set already.
 * @param {string | undefined} existing
 * @param {readonly string[]} added
 * @returns {string}
 */
export function withFlags(existing, added) {
  const own = (existing ?? "").split(" ").filter((f) => f !== "");
  const names = new Set(own.map((f) => f.split("=")[0]));
  return [...own, ...added.filter((f) => !names.has(f.split("=")[0]))].join(" ");
}

/**
 * Flags of the host runtime (and its standby) only: a young generation of at most 2 × 2 MiB
 * semi-spaces. The host allocates a great deal of short-lived garbage per request (MCP messages,
 * streams, redaction copies), and with V8's default (semi-spaces growing to 16 MiB or more) its
 * resident memory grew for thousands of calls before it held: 207 → 337 MiB over 6,000 calls
 * (2026-12-05), against 162 → 225 with this flag. Objects that live longer than a request
 * reach the old generation sooner, where full collections also free the native memory their
 * wrappers hold. Not for runners: their flags reach every sandbox isolate in the process.
 */
export const HOST_FLAGS = ["--max-semi-space-size=2"];

/**
 * A host flag only when its sandboxes run in runner processes: V8's `gc` function, which the
 * host Worker calls after every 250 requests (src/app/host-collection.ts) so that memory only a
 * full collection gives back is given back. Flags reach every isolate of the process: with no
 * runners, sandbox programs run in the host itself and would get `gc` too (a program could then
 * stall the host at will), so it is never set there.
 */
export const HOST_COLLECTION_FLAG = "--expose-gc";

/**
 * The host runtime's flags.
 * @param {number} runners - how many runner processes run its sandboxes
 * @returns {string[]}
 */
export function hostFlags(runners) {
  return runners > 0 ? [...HOST_FLAGS, HOST_COLLECTION_FLAG] : HOST_FLAGS;
}

/**
 * Node's flags for the configuration builder (workerd-config-builder.mjs, started by runtime.mjs
 * for a few seconds; it once was the runtime host process that held every runtime): V8's
 * settings that favour memory over speed, and a young generation of at most 2 × 1 MiB. Its work
 * is building configurations, never a request, so its speed does not matter; as the runtime host, idle with Cloudflare's spec it held 127–131 MB from 20 s after the start with them,
 * and 188–195 MB until V8 happened to collect (a minute or more) without (2026-12-06, Node 22,
 * with the malloc settings of malloc-env.mjs). `--lite-mode` would save more but leaves Node
 * without WebAssembly, which its own `fetch` (undici) needs at load: the process did not start.
 */
export const RUNTIME_HOST_NODE_FLAGS = ["--optimize-for-size", "--max-semi-space-size=1"];
