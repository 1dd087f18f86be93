/**
 * The runtimes of one server and its runner slots' count: what the launcher needs to start its
 * first host (cli/serve.mjs, beside the launch check) without loading the rest of the
 * supervisor (supervise.mjs: the front, the runner pool, the watchdogs), which loads while that
 * host starts (issue #43: a warm desktop launch loaded all of it before the host's spawn).
 */
import { createRuntimeHost } from "./runtime.mjs";

/** The most runner slots the host reads (src/app/sandbox-loader.ts): 16 runners and a spare. */
const MAX_SLOTS = 17;

/**
 * Spare slots beyond the configured runners (runners/runner-pool.mjs): one, while the host can take it.
 * @param {number} runners
 */
export const spareRunners = (runners) => (runners > 0 && runners < MAX_SLOTS ? 1 : 0);

/**
 * What the server says of its workerd configurations: whether they were read from the cache or
 * built and kept there, each wording once. The host and the runners have a configuration each
 * (two keys, each noted by runtime.mjs), and each was said: `npm start` printed "built, kept in …"
 * twice at every launch.
 * @param {(line: string) => void} log
 * @param {string} label
 * @param {string} folder - where the configurations are kept ("memory" without a cache)
 * @returns {(line: string) => void} told each configuration's key and "kept" or "built"
 */
export function configNote(log, label, folder) {
  /** @type {Set<string>} */
  const said = new Set();
  return (line) => {
    const text = `${label}: workerd configuration ${line.endsWith("kept") ? "read from" : "built, kept in"} ${folder}.`;
    if (said.has(text)) return;
    said.add(text);
    log(text);
  };
}

/**
 * The runtimes of one server (runtime.mjs), logging whether its workerd configurations were kept
 * ({@link configNote}).
 * @param {{ env: Record<string, string>, socketFolder: string, persist?: string, configCache?: import("./workerd-config/runtime-config.mjs").ConfigSources["cache"] & { folder?: string }, log: (line: string) => void, label: string }} options
 * @returns {import("./runtime.mjs").RuntimeHost}
 */
export function runtimeHost({ env, socketFolder, persist, configCache, log, label }) {
  return createRuntimeHost(env, socketFolder, {
    persist,
    cache: configCache,
    note: configNote(log, label, configCache?.folder ?? "memory"),
  });
}
