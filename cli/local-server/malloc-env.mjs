/**
 * glibc malloc settings for the supervisor (the `npm start` / `code-mode-mcp serve` process, which
 * hosts the front) and for the configuration builder (workerd-config-builder.mjs) and the workerd
 * processes it starts: a process's environment is the only way to give them (glibc reads them at
 * start), so the supervisor starts itself again with them ({@link restartWithMallocSettings}).
 *
 * Why, for the runtimes: an idle runtime host process held ~130 MB outside its JavaScript heap
 * (2026-12-06, Node 22, Cloudflare's spec: 51 MB of heap after a full collection, 183–230 MB
 * resident). That was memory malloc kept after the start-up peak (Miniflare builds each runtime's
 * configuration, a few copies of the Worker bundle and the compiled spec, then frees them): with
 * one arena per thread and the default dynamic thresholds, freed blocks stay in the process. At
 * most two arenas, and blocks of 128 KiB and more mapped on their own (given back to the system
 * when freed) with the heap's top trimmed past 128 KiB: the idle process then held 136–164 MB
 * (figures in bench/README.md). Each setting the user already gave keeps the user's value.
 *
 * Why, for the supervisor: the front holds request bodies of up to 4 MiB (front/). With glibc's
 * default, the first such buffer freed raises malloc's threshold for mapping blocks on their own
 * past 4 MiB, so every later body buffer lands in the heap, whose freed pages stay with the
 * process while anything lives above them: 120 uploads left ~100 MB that never went back
 * (issue #40). With a fixed threshold every body buffer is mapped on its own and unmapped when
 * freed.
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

/**
 * Whether the supervisor starts itself again to get {@link MALLOC_SETTINGS}, and with what
 * environment. Only where glibc reads them (Linux), only when one of them is not set yet (after
 * the restart all are, so it happens once), only when the process can replace itself in place
 * (`process.execve`, Node 22.15 and later: same process id, same open files, no second Node
 * process), and not when it has an IPC channel to its parent (Node takes the channel's file
 * descriptor out of the environment at start, so the new image would lose it: a bench's
 * fork; such a parent may set the settings itself).
 * @param {object} options
 * @param {Record<string, string | undefined>} options.env - the process's environment
 * @param {NodeJS.Platform} options.platform
 * @param {boolean} options.canExec - whether `process.execve` exists
 * @param {boolean} options.ipc - whether the process has an IPC channel to its parent
 * @returns {{ restart: Record<string, string | undefined> } | { stay: string }}
 */
export function mallocRestart({ env, platform, canExec, ipc }) {
  if (platform !== "linux") return { stay: "glibc's malloc settings apply on Linux only" };
  const missing = Object.keys(MALLOC_SETTINGS).filter((name) => env[name] === undefined);
  if (missing.length === 0) return { stay: "the malloc settings are set" };
  if (!canExec) return { stay: "this Node.js cannot replace its process (process.execve)" };
  if (ipc) return { stay: "an IPC channel to the parent would be lost" };
  return { restart: withMallocSettings(env) };
}

/**
 * Starts this process again in place with {@link MALLOC_SETTINGS} when {@link mallocRestart}
 * says so (then it does not return: the same script starts over with the same arguments and
 * Node flags); else returns why not. Call it first, before any thread, socket or stdin read.
 * @param {Pick<NodeJS.Process, "env" | "platform" | "execPath" | "execArgv" | "argv" | "channel"> & { execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never }} [proc]
 * @returns {string} why it stays (when it returns)
 */
export function restartWithMallocSettings(proc = /** @type {any} */ (process)) {
  const decision = mallocRestart({
    env: proc.env,
    platform: proc.platform,
    canExec: typeof proc.execve === "function",
    ipc: proc.channel !== undefined,
  });
  if ("stay" in decision) return decision.stay;
  const execve = /** @type {NonNullable<typeof proc.execve>} */ (proc.execve);
  execve(proc.execPath, [proc.execPath, ...proc.execArgv, ...proc.argv.slice(1)], decision.restart);
  return "process.execve returned";
}
