/**
 * The Miniflare options of the local runtimes, from the prebuilt Worker's wrangler config
 * (dist/worker/wrangler.json): what `wrangler dev` would have configured, given straight to
 * Miniflare (workerd-config-builder.mjs), plus the runner bindings.
 */
import { cpus } from "node:os";
import { join, resolve, dirname } from "node:path";
import { CLUSTER_SECRET_BINDING } from "./cluster-secret.mjs";
import { hostFlags } from "./v8-flags.mjs";

/** The runner Worker's entrypoint the host calls (src/executor/runners/sandbox-runner.ts). */
export const RUNNER_ENTRYPOINT = "SandboxRunner";
/** Cores counted toward the default number of runners: past this, more runners gain little. */
const MAX_DEFAULT_CORES = 4;

/**
 * How many sandbox runners to start when `SANDBOX_RUNNERS` is unset (the setting itself is a row
 * of src/app/config/launcher-settings.ts, read by cli/serve.mjs): one per core (at most
 * {@link MAX_DEFAULT_CORES}) plus one. The one more is for the runner a program may be holding: a
 * blocked runner keeps a core busy, and the rest of the machine's cores still have a free runner
 * each, so runs need not queue beside the blocked one.
 * @returns {number}
 */
export function defaultRunnerCount() {
  return Math.max(1, Math.min(cpus().length, MAX_DEFAULT_CORES)) + 1;
}

/**
 * The host runtime's message: the product Worker with its bindings, Durable Objects and local
 * data, and one service binding per runner.
 * @param {object} options
 * @param {string} options.configFile - dist/worker/wrangler.json
 * @param {any} options.config - its parsed content
 * @param {Record<string, string>} options.bindings - settings and vars (strings)
 * @param {string} options.persist - the local data folder (`--persist-to` of wrangler dev)
 * @param {string[]} options.runners - the runner slots' RPC addresses (`unix:<path>`)
 * @param {number} [options.spares] - how many of the last are spare slots (runners/runner-pool.mjs)
 * @param {string} options.secret - this server's cluster secret (cluster-secret.mjs): the Worker
 *   refuses every request that does not carry it, and sends it on every runner call
 * @returns {import("./runtime.mjs").RuntimeMessage}
 */
export function hostMessage({
  configFile,
  config,
  bindings,
  persist,
  runners,
  spares = 0,
  secret,
}) {
  const sqlite = new Set(
    (config.migrations ?? []).flatMap((/** @type {any} */ m) => m.new_sqlite_classes ?? []),
  );
  return {
    v8Flags: hostFlags(runners.length),
    // The front sends requests to this Worker's direct socket (a Unix socket runtime.mjs
    // adds in the private folder), straight to the Worker. Miniflare's entry socket goes through
    // its entry Worker first (routing, the `cf` object, pretty errors, request lines): a second
    // isolate per request that cost ~0.35 ms of latency and ~0.3 ms of the host's CPU per
    // `ping`, and whose share of each request was the native memory the host gained over a
    // long soak (docs/local-runtime.md, "Memory over time").
    direct: { worker: config.name },
    options: {
      // Miniflare's entry socket: moved to a Unix socket as workerd starts
      // (workerd-arguments.mjs). 127.0.0.1, so Miniflare adds no second, local entry socket.
      host: "127.0.0.1",
      port: 0,
      cf: false,
      // wrangler dev keeps its local data under <persist-to>/v3: the same files as before.
      resourcePersistencePath: join(persist, "v3"),
      workers: [
        {
          name: config.name,
          modules: true,
          scriptPath: resolve(dirname(configFile), config.main),
          // Module names are paths relative to this root; the default (the working folder) made
          // them "../…" when started from a folder outside the package, which workerd refuses.
          modulesRoot: dirname(resolve(dirname(configFile), config.main)),
          compatibilityDate: config.compatibility_date,
          compatibilityFlags: config.compatibility_flags ?? [],
          bindings: {
            ...config.vars,
            ...bindings,
            ...(runners.length > 0 ? { SANDBOX_RUNNERS: String(runners.length) } : {}),
            ...(spares > 0 ? { SANDBOX_SPARE_RUNNERS: String(spares) } : {}),
            // Last: no setting or var can replace it.
            [CLUSTER_SECRET_BINDING]: secret,
          },
          workerLoaders: Object.fromEntries(
            (config.worker_loaders ?? []).map((/** @type {any} */ l) => [l.binding, {}]),
          ),
          durableObjects: Object.fromEntries(
            (config.durable_objects?.bindings ?? []).map((/** @type {any} */ b) => [
              b.name,
              { className: b.class_name, useSQLite: sqlite.has(b.class_name) },
            ]),
          ),
          serviceBindings: Object.fromEntries(
            runners.map((address, i) => [
              `SANDBOX_RUNNER_${i + 1}`,
              { external: { address, http: {} } },
            ]),
          ),
        },
      ],
    },
  };
}

/**
 * A runner's message: the runner Worker with the Worker Loader, its RPC entrypoint on a Unix
 * socket of a fixed name in the server's private folder (socket-folder.mjs: a replacement binds
 * the same name, so the host's binding stays valid, and no other user can reach or take it).
 * @param {object} options
 * @param {string} options.scriptPath - dist/worker/runner.js
 * @param {string} options.compatibilityDate
 * @param {string} options.rpcHost - the host of its RPC socket: `unix:<path>` in the server's
 *   private socket folder (socket-folder.mjs)
 * @param {string} options.secret - this server's cluster secret: the runner serves RPC, `/health`
 *   and `/retire` only to callers that send it
 * @returns {import("./runtime.mjs").RuntimeMessage}
 */
export function runnerMessage({ scriptPath, compatibilityDate, rpcHost, secret }) {
  return {
    options: {
      // As the host's: its entry socket (`/health`, `/retire`) becomes a Unix socket.
      host: "127.0.0.1",
      port: 0,
      cf: false,
      workers: [
        {
          name: "sandbox-runner",
          modules: true,
          scriptPath,
          // As the host's: names relative to the script's folder, whatever the working folder.
          modulesRoot: dirname(scriptPath),
          compatibilityDate,
          workerLoaders: { LOADER: {} },
          // No Cache API, so no storage: Miniflare's is a Durable Object on disk in its
          // temporary folder, one folder for every runner (they share one configuration), and
          // each runner's workerd opens its alarms' `metadata.sqlite` as it starts: two runners
          // starting at once on a new file crashed one with SQLITE_BUSY ("database is locked").
          // Nothing in a runner used it: the runner Worker caches nothing, and the programs it
          // loads had no Cache API either way ("No Cache was configured").
          cacheAPI: false,
          bindings: { [CLUSTER_SECRET_BINDING]: secret },
          unsafeDirectSockets: [{ entrypoint: RUNNER_ENTRYPOINT, host: rpcHost, port: 0 }],
        },
      ],
    },
  };
}
