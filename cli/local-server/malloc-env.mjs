/**
 * glibc malloc settings for the configuration builder (workerd-config-builder.mjs) and the workerd processes
 * it starts: a process's environment is the only way to give them (glibc reads them at start).
 *
 * Why: an idle runtime host process held ~130 MB outside its JavaScript heap (2026-12-06, Node 22,
 * Cloudflare's spec: 51 MB of heap after a full collection, 183–230 MB resident). That was memory
 * malloc kept after the start-up peak (Miniflare builds each runtime's configuration, a few copies
 * of the Worker bundle and the compiled spec, then frees them): with one arena per thread and
 * the default dynamic thresholds, freed blocks stay in the process. At most two arenas, and
 * blocks of 128 KiB and more mapped on their own (given back to the system when freed) with the
 * heap's top trimmed past 128 KiB: the idle process then held 136–164 MB (figures in
 * bench/README.md). Each setting the user already gave keeps the user's value.
 */

/** The settings (glibc's tunables by their environment names). */
export const MALLOC_SETTINGS = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

/**
 * `env` with {@link MALLOC_SETTINGS} added where it sets none of them itself.
 * @template {Record<string, string | undefined>} Env
 * @param {Env} env
 * @returns {Env}
 */
export function withMallocSettings(env) {
  const added = Object.fromEntries(
    Object.entries(MALLOC_SETTINGS).filter(([name]) => env[name] === undefined),
  );
  return { ...env, ...added };
}
