// The one launcher behind `npm start` and `code-mode-mcp serve`: reads the settings the product
// defines (src/app/config/setting-names.ts) from an environment, checks them with the Worker's own check
// (src/app/config/config.ts), validates and compiles SPEC_FILE in Node (swagger-parser cannot run in
// workerd) and hands it to the prebuilt Worker in the LAUNCH_SPECS var (src/app/config/launch-specs.ts),
// with the o200k count of what /mcp will list (LAUNCH_TOOLS_LIST_TOKENS; the Worker has no tokenizer),
// then serves 127.0.0.1:PORT through the supervisor (cli/local-server/), which keeps a healthy
// host runtime and its sandbox runners behind it. Bad configuration stops here, before any
// runtime starts, with the setting's name and the fix.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { clusterSecret, shareSecretWithParent } from "./local-server/cluster-secret.mjs";
import { runtimeEnv } from "./local-server/runtime-env.mjs";
import { createSocketFolder } from "./local-server/socket-folder.mjs";
import { privateDataFolder } from "./local-server/data-folder.mjs";
import { withMallocSettings } from "./local-server/malloc-env.mjs";
import { runtimeHost, spareRunners } from "./local-server/runtime-host.mjs";
import { guessedBindings, startEarlyHost } from "./local-server/early-host.mjs";
import { workerdV8Flags } from "./local-server/v8-flags.mjs";
import { hostMessage, runnerMessage } from "./local-server/worker-options.mjs";
import { PRODUCT_MODULE, RUNNER_SCRIPT, WORKER_CONFIG } from "./runtime-paths.mjs";
import { configCacheFolder, openConfigCache } from "./local-server/workerd-config/config-cache.mjs";
import { specCacheKeyFile } from "./kept/spec-cache-key.mjs";
import { openSpecCache, specCacheFolder } from "./kept/spec-cache.mjs";
import { launchMemoFolder, memoOfPlan, openLaunchMemos } from "./kept/launch-memo.mjs";
import { planInProcess } from "./plan-in-process.mjs";
import { keptFoldersWarning } from "./kept/kept-folders-warning.mjs";

/**
 * @typedef {object} ServeOptions
 * @property {string} label - message prefix: "npm start" or "code-mode-mcp"
 * @property {NodeJS.ProcessEnv} env - where the settings come from (SPEC_FILE, PORT, PERSIST_TO too)
 * @property {string} persist - the runtime's local data folder (`--persist-to`)
 * @property {boolean} [ownData] - `persist` was made for this launch alone and goes with it
 *   (`cleanup`): the host may start in it before the check passed (early-host.mjs)
 * @property {(line: string) => void} log - where status lines go (stderr under --stdio)
 * @property {(line: string) => void} progress - progress on slow steps (always stderr)
 * @property {() => void} [cleanup] - more to remove on exit
 * @property {(message: string) => Promise<void>} [refuse] - a refused start's message for a
 *   client that cannot read stderr (`--stdio`: answer-with-error.mjs); the process exits once it
 *   resolves
 * @property {() => void} [passed] - called once every setting, the spec and the port passed,
 *   before any runtime starts
 * @property {() => void} [ready] - called once the server answers on its port (the first host
 *   and runners ready)
 * @property {string} [bridgeSecret] - under `--stdio`, the secret only the bridge sends: the
 *   front refuses every request without it (front/bridge-only.mjs)
 * @property {ReturnType<typeof planInProcess>} [planned] - the launch check, started by the
 *   caller already (planInProcess with the same label and env): a launcher that starts it
 *   before it loads this module's graph has its plan sooner; without, serve starts it
 */

/**
 * Checks the settings in `env` and serves them; exits the process on bad configuration or at the
 * end. Resolves never.
 *
 * The checks and the spec's compilation run in a Node process that ends before the server
 * starts (plan-launch-child.mjs): the product module (the validator, both MCP SDKs, the
 * tokenizer: ~100 MB) and a large spec's validation (~170 MB more for Cloudflare's) were held by
 * the supervisor for the server's whole life, which needs none of it (issue #43: the supervisor
 * was 250–345 MB idle). A process's memory all goes with it (a worker thread's left ~24 MiB of
 * free holes in this process's malloc arenas).
 * @param {ServeOptions} options
 * @returns {Promise<void>}
 */
export async function serve({
  label,
  env,
  persist,
  ownData = false,
  log,
  progress,
  cleanup,
  refuse,
  passed,
  ready,
  bridgeSecret,
  planned,
}) {
  const planning = planned ?? planInProcess({ label, env, log, progress });
  // Once per launch: kept folders refused as not this user's alone make every cache fall back
  // without a word (kept-folders-warning.mjs).
  const refusedFolders = keptFoldersWarning(env, label);
  if (refusedFolders) progress(refusedFolders);
  // The prebuilt Worker's configuration, given straight to Miniflare. The settings (secrets
  // among them) and SPEC_FILE's compiled spec go to the runtime over its IPC channel: never
  // into a file or a process environment (a large spec there made spawning workerd fail, E2BIG).
  const worker = JSON.parse(readFileSync(WORKER_CONFIG, "utf8"));
  // An allow-list: no setting or secret of the launcher's environment reaches a workerd
  // (runtime-env.mjs). glibc's malloc settings (malloc-env.mjs) are added where the user set none.
  const runtimeEnvironment = withMallocSettings(
    runtimeEnv(process.env, {
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      MINIFLARE_WORKERD_V8_FLAGS: workerdV8Flags(process.env.MINIFLARE_WORKERD_V8_FLAGS),
    }),
  );
  // workerd's configurations kept between launches, without this launch's settings, secrets
  // or folders (config-cache.mjs): a launch with nothing changed loads no Miniflare.
  const configCache = openConfigCache(configCacheFolder(env), specCacheKeyFile(env), {
    warn: (line) => log(`${label}: ${line}`),
  });
  /** @param {Record<string, string>} bindings */
  const hostOf = (bindings) => (/** @type {string[]} */ addresses, /** @type {number} */ spares) =>
    hostMessage({
      spares,
      configFile: WORKER_CONFIG,
      config: worker,
      bindings,
      persist,
      runners: addresses,
      secret: clusterSecret,
    });
  const specFile = env.SPEC_FILE ? resolve(env.SPEC_FILE) : undefined;
  const memos = openLaunchMemos(launchMemoFolder(env), specCacheKeyFile(env));
  const memo = memos.read(specFile, env);
  // A stop before the plan ends the host started from the memo and removes its folder (the
  // supervisor's own stop takes over once it runs); without, workerd's lifeline ended it but the
  // folder stayed until a later start removed it as stale. Listening before that host starts:
  // a signal with no listener ends the process at once. Listening with no memo too: that ending
  // left the launch's own temporary data folder for good (a `--stdio` client answered early from
  // a kept `initialize` answer stops the launch while the check plans: e2e stdio-early-stop).
  /** @type {ReturnType<typeof startBesideCheck>} */
  let early;
  let stopped = false;
  const stopEarly = () => {
    stopped = true;
    void (early?.host.end("the server is stopping") ?? Promise.resolve()).finally(() => {
      early?.sockets.remove();
      cleanup?.();
      process.exit(0);
    });
  };
  const signals = /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]);
  for (const signal of signals) process.once(signal, stopEarly);
  // The last launch's host, started now beside the check (early-host.mjs); the check's plan
  // decides whether it serves.
  early = memo
    ? startBesideCheck({
        memo,
        env,
        specFile,
        persist,
        ownData,
        hostOf,
        log,
        label,
        runtimeEnvironment,
        configCache,
      })
    : undefined;
  // The rest of the supervisor (the front, the runner pool: ~0.1–0.2 s of a loaded machine to
  // load) loads now, while the check plans and that host starts, not before its spawn (issue #43).
  const supervisor = import("./local-server/supervise.mjs");
  // A refused launch exits before it is awaited: no unhandled rejection then.
  supervisor.catch(() => {});

  const plan = await planning;
  for (const signal of signals) process.off(signal, stopEarly);
  // Stopped meanwhile: the process exits once that host is gone.
  if (stopped) return new Promise(() => {});
  if (!plan.ok) {
    await early?.host.end("the configuration is invalid");
    early?.sockets.remove();
    const text = `${label}: the configuration is invalid, nothing was started.\n${plan.message}`;
    console.error(`\n${text}\n`);
    // A refused start leaves nothing behind (the launcher's temporary data folder included).
    cleanup?.();
    // Under --stdio the client hears it too, as its initialize error, before the exit.
    if (refuse) await refuse(text).catch(() => {});
    process.exit(plan.exitCode ?? 1);
  }
  passed?.();
  const { port, runners, maxRuns, runTimeoutMs, logRequests, warmStandby, front, bindings } =
    plan.plan;
  // Only the server's own processes talk to its runtimes: they send this launch's secret, which
  // travels to the runtimes in their messages (cluster-secret.mjs). A bench that measures the
  // runtimes' own ports may ask for it over its IPC channel.
  shareSecretWithParent(env);
  // Every internal socket (runner RPC, the runtimes' HTTP sockets, Miniflare's): in a folder only
  // this user can enter (socket-folder.mjs).
  /** @type {import("./local-server/socket-folder.mjs").SocketFolder} */
  let sockets;
  try {
    // The runtimes' local data (run history, tasks, skills, OAuth grants) in a folder only this
    // user can enter (data-folder.mjs): workerd writes its files world-readable.
    privateDataFolder(persist);
    sockets = early?.sockets ?? createSocketFolder();
  } catch (error) {
    console.error(`\n${label}: ${/** @type {Error} */ (error).message}\n`);
    cleanup?.();
    process.exit(1);
  }
  // The memo the next launch starts its host from, once this one serves (off its critical path).
  const keepMemo = () => {
    const next = memoOfPlan(plan.plan, env);
    if (next && JSON.stringify(next) !== JSON.stringify(memo)) memos.write(specFile, next);
  };
  const { supervise } = await supervisor;
  await supervise({
    port,
    runners,
    maxRunsPerRunner: maxRuns,
    runTimeoutMs,
    logRequests,
    warmStandby,
    front: bridgeSecret ? { ...front, bridgeSecret } : front,
    host: hostOf(bindings),
    runner: (index) =>
      runnerMessage({
        scriptPath: RUNNER_SCRIPT,
        compatibilityDate: worker.compatibility_date,
        rpcHost: sockets.runner(index).host,
        secret: clusterSecret,
      }),
    runnerSocket: (index) => sockets.runner(index),
    socketFolder: sockets.path,
    persist,
    configCache,
    ...(early ? { early: { runtimes: early.runtimes, host: early.host } } : {}),
    env: runtimeEnvironment,
    log,
    label,
    onReady: () => {
      ready?.();
      setImmediate(keepMemo);
    },
    cleanup: () => {
      sockets.remove();
      cleanup?.();
    },
  });
}

/**
 * Starts the host the last launch's memo describes (early-host.mjs), with this launch's
 * environment, kept spec, folders and cluster secret, before the launch check has planned;
 * undefined when the memo's bindings cannot all be had now, or the folders cannot be made
 * (the launch then goes on as without a memo, and says why once the plan comes).
 * @param {object} options
 * @param {import("./kept/launch-memo.mjs").LaunchMemo} options.memo
 * @param {NodeJS.ProcessEnv} options.env
 * @param {string | undefined} options.specFile
 * @param {string} options.persist
 * @param {boolean} options.ownData
 * @param {(bindings: Record<string, string>) => (addresses: string[], spares: number) => import("./local-server/runtime.mjs").RuntimeMessage} options.hostOf
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @param {Record<string, string>} options.runtimeEnvironment
 * @param {ReturnType<typeof openConfigCache>} options.configCache
 */
function startBesideCheck({
  memo,
  env,
  specFile,
  persist,
  ownData,
  hostOf,
  log,
  label,
  runtimeEnvironment,
  configCache,
}) {
  const bindings = guessedBindings(memo, env, () =>
    specFile
      ? openSpecCache(specCacheFolder(env), PRODUCT_MODULE, specCacheKeyFile(env)).read(specFile)
          ?.text
      : undefined,
  );
  // Only in a data folder known to be this launch's alone: the launcher's own, which goes with
  // the launch. A folder the user named (PERSIST_TO) may be another server's at this moment, and
  // its host started before the check would share that server's SQLite files and run its due
  // alarms even when the check then refused the launch ("nothing was started"); one that held
  // no runtime data gained `v3/` so. Such a launch waits for its check.
  if (!bindings || !ownData || !existsSync(persist)) return undefined;
  /** @type {import("./local-server/socket-folder.mjs").SocketFolder} */
  let sockets;
  try {
    privateDataFolder(persist);
    sockets = createSocketFolder();
  } catch {
    return undefined;
  }
  const runtimes = runtimeHost({
    env: runtimeEnvironment,
    socketFolder: sockets.path,
    persist,
    configCache,
    log,
    label,
  });
  const slots = memo.runners + spareRunners(memo.runners);
  const addresses = Array.from({ length: slots }, (_, i) => sockets.runner(i + 1).address);
  const message = hostOf(bindings)(addresses, spareRunners(memo.runners));
  return { sockets, runtimes, host: startEarlyHost(runtimes, message, "runtime 1") };
}
