// The one launcher behind `npm start` and `code-mode-mcp serve`: reads the settings the product
// defines (src/app/config/setting-names.ts) from an environment, checks them with the Worker's own check
// (src/app/config/config.ts), validates and compiles SPEC_FILE in Node (swagger-parser cannot run in
// workerd) and hands it to the prebuilt Worker in the LAUNCH_SPECS var (src/app/config/launch-specs.ts),
// with the o200k count of what /mcp will list (LAUNCH_TOOLS_LIST_TOKENS; the Worker has no tokenizer),
// then serves 127.0.0.1:PORT through the supervisor (cli/local-server/), which keeps a healthy
// host runtime and its sandbox runners behind it. Bad configuration stops here, before any
// runtime starts, with the setting's name and the fix.
import { readSkillFolders } from "./skills.mjs";
import { existsSync, readFileSync, statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { basename, extname, resolve } from "node:path";
import { clusterSecret, shareSecretWithParent } from "./local-server/cluster-secret.mjs";
import { bodyBudgetSetting } from "./local-server/front/body-budget.mjs";
import { createSocketFolder } from "./local-server/socket-folder.mjs";
import { supervise } from "./local-server/supervise.mjs";
import { workerdV8Flags } from "./local-server/v8-flags.mjs";
import { maxRunsSetting } from "./local-server/runner-retirement.mjs";
import {
  hostMessage,
  logRequestsSetting,
  runnerCount,
  runnerMessage,
} from "./local-server/worker-options.mjs";
import { portInUse } from "./port-in-use.mjs";
import { PRODUCT_MODULE, RUNNER_SCRIPT, WORKER_CONFIG } from "./runtime-paths.mjs";
import { specCacheKeyFile } from "./spec-cache-key.mjs";
import { openSpecCache, specCacheFolder } from "./spec-cache.mjs";

/**
 * @typedef {object} ServeOptions
 * @property {string} label - message prefix: "npm start" or "code-mode-mcp"
 * @property {NodeJS.ProcessEnv} env - where the settings come from (SPEC_FILE, PORT, PERSIST_TO too)
 * @property {string} persist - the runtime's local data folder (`--persist-to`)
 * @property {(line: string) => void} log - where status lines go (stderr under --stdio)
 * @property {(line: string) => void} progress - progress on slow steps (always stderr)
 * @property {() => void} [cleanup] - more to remove on exit
 * @property {(message: string) => Promise<void>} [refuse] - a refused start's message for a
 *   client that cannot read stderr (`--stdio`: answer-with-error.mjs); the process exits once it
 *   resolves
 * @property {() => void} [passed] - called once every setting, the spec and the port passed,
 *   before any runtime starts
 */

/**
 * Checks the settings in `env` and serves them; exits the process on bad configuration or at the
 * end. Resolves never.
 *
 * The checks and the spec's compilation run in a worker thread that ends before the server
 * starts (plan-launch-thread.mjs): the product module (the validator, both MCP SDKs, the
 * tokenizer: ~100 MB) and a large spec's validation (~170 MB more for Cloudflare's) were held by
 * the supervisor for the server's whole life, which needs none of it (issue #43: the supervisor
 * was 250–345 MB idle). A thread's heap goes with it.
 * @param {ServeOptions} options
 * @returns {Promise<void>}
 */
export async function serve({ label, env, persist, log, progress, cleanup, refuse, passed }) {
  const plan = await planInThread({ label, env, log, progress });
  if (!plan.ok) {
    const text = `${label}: the configuration is invalid, nothing was started.\n${plan.message}`;
    console.error(`\n${text}\n`);
    // A refused start leaves nothing behind (the launcher's temporary data folder included).
    cleanup?.();
    // Under --stdio the client hears it too, as its initialize error, before the exit.
    if (refuse) await refuse(text).catch(() => {});
    process.exit(plan.exitCode ?? 1);
  }
  passed?.();
  const { port, runners, maxRuns, runTimeoutMs, logRequests, front, bindings } = plan.plan;
  // The prebuilt Worker's configuration, given straight to Miniflare. The settings (secrets
  // among them) and SPEC_FILE's compiled spec go to the runtime over its IPC channel: never
  // into a file or a process environment (a large spec there made spawning workerd fail, E2BIG).
  const worker = JSON.parse(readFileSync(WORKER_CONFIG, "utf8"));
  // Only the server's own processes talk to its runtimes: they send this launch's secret, which
  // travels to the runtimes in their messages (cluster-secret.mjs). A bench that measures the
  // runtimes' own ports may ask for it over its IPC channel.
  shareSecretWithParent(env);
  // The runners' RPC sockets: in a folder only this user can enter (socket-folder.mjs).
  const sockets = createSocketFolder();
  await supervise({
    port,
    runners,
    maxRunsPerRunner: maxRuns,
    runTimeoutMs,
    logRequests,
    front,
    host: (addresses) =>
      hostMessage({
        configFile: WORKER_CONFIG,
        config: worker,
        bindings,
        persist,
        runners: addresses,
        secret: clusterSecret,
      }),
    runner: (index) =>
      runnerMessage({
        scriptPath: RUNNER_SCRIPT,
        compatibilityDate: worker.compatibility_date,
        rpcHost: sockets.runner(index).host,
        secret: clusterSecret,
      }),
    runnerSocket: (index) => sockets.runner(index),
    env: {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      MINIFLARE_WORKERD_V8_FLAGS: workerdV8Flags(process.env.MINIFLARE_WORKERD_V8_FLAGS),
    },
    log,
    label,
    cleanup: () => {
      sockets.remove();
      cleanup?.();
    },
  });
}

/**
 * @typedef {object} LaunchPlan
 * @property {number} port
 * @property {number} runners
 * @property {number} maxRuns
 * @property {number} runTimeoutMs
 * @property {boolean} logRequests
 * @property {{ bodyBudgetBytes: number, apiKey?: string }} front - the front's own limits
 * @property {Record<string, string>} bindings - the host Worker's settings and vars
 */

/**
 * Runs {@link planLaunch} in a worker thread (plan-launch-thread.mjs) and waits for its plan,
 * passing its log and progress lines on as they come.
 * @param {{ label: string, env: NodeJS.ProcessEnv, log: (line: string) => void, progress: (line: string) => void }} options
 * @returns {Promise<{ ok: true, plan: LaunchPlan } | { ok: false, message: string, exitCode?: number }>}
 */
function planInThread({ label, env, log, progress }) {
  return new Promise((settle) => {
    const thread = new Worker(new URL("./plan-launch-thread.mjs", import.meta.url), {
      workerData: { label, env: { ...env } },
      // Its console goes to this process's stderr (never stdout: under --stdio that is the
      // protocol's); what it logs comes as messages.
      stdout: true,
    });
    thread.stdout.on("data", (chunk) => process.stderr.write(chunk));
    /** @type {{ ok: true, plan: LaunchPlan } | { ok: false, message: string } | undefined} */
    let answer;
    thread.on("message", (/** @type {any} */ message) => {
      if (typeof message.log === "string") log(message.log);
      else if (typeof message.progress === "string") progress(message.progress);
      else if (message.plan) answer = { ok: true, plan: message.plan };
      else if (typeof message.fail === "string") answer = { ok: false, message: message.fail };
    });
    thread.on("error", (error) => {
      answer ??= { ok: false, message: String(error?.stack ?? error) };
    });
    // The thread ends on its own once its plan is sent (or it exited: a missing build).
    thread.on("exit", (code) =>
      settle(
        answer ?? /** @type {any} */ ({
          ok: false,
          message: `the launch check ended (exit code ${code}) without a plan.`,
          exitCode: code || 1,
        }),
      ),
    );
  });
}

/** What {@link planLaunch}'s `fail` throws: the configuration's problem, for the caller. */
export class LaunchProblem extends Error {}

/**
 * Checks the settings in `env` and plans the launch: the port, the runners, the host Worker's
 * bindings (with SPEC_FILE validated and compiled, or taken from the spec cache). Bad
 * configuration throws a {@link LaunchProblem} with the setting's name and the fix.
 * @param {{ label: string, product: any, env: NodeJS.ProcessEnv, log: (line: string) => void, progress: (line: string) => void, warn: (line: string) => void }} options
 * @returns {Promise<LaunchPlan>}
 */
export async function planLaunch({ label, product, env, log, progress, warn }) {
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    throw new LaunchProblem(message);
  };
  const port = env.PORT ?? "8787";
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    fail(
      `- PORT: "${port}" is not a port number (1 to 65535).\n  Fix: ${label === "npm start" ? "PORT=8787 npm start" : "--port 8787"}`,
    );

  /** @type {Record<string, string>} */
  const settings = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && product.isSettingName(name)) settings[name] = value;

  // The specs built into the Worker (specs/ at build time; the product module is built with it).
  /** @type {Record<string, string>} */
  const specTexts = { ...product.COMPACT_SPECS };

  /** @type {Record<string, unknown>} */
  const launchSpecs = {};
  const specFile = env.SPEC_FILE?.trim();
  if (specFile && /^[a-z][a-z0-9+.-]*:\/\//i.test(specFile))
    fail(
      `- SPEC_FILE: ${specFile} is a URL, and URLs are not fetched: download it first.\n  Fix: curl -fLo openapi.json '${specFile}', then SPEC_FILE=./openapi.json (--spec ./openapi.json).`,
    );
  if (specFile) {
    const file = resolve(specFile);
    if (!existsSync(file) || !statSync(file).isFile())
      fail(
        `- SPEC_FILE: ${file} does not exist.\n  Fix: point SPEC_FILE (--spec) at an OpenAPI 2.0/3.0/3.1 file (JSON or YAML).`,
      );
    const name = basename(file, extname(file));
    if (specTexts[name] && settings.SPEC === undefined)
      warn(`${label}: SPEC_FILE ${name} replaces the compiled spec of the same name.`);
    const cache = openSpecCache(specCacheFolder(env), PRODUCT_MODULE, specCacheKeyFile(env));
    /** @type {any} */
    let compact;
    /** @type {string[]} */
    let notes;
    const kept = cache.read(file);
    if (kept) {
      ({ compact, notes } = kept);
      progress(
        `${label}: ${file} was validated and compiled by an earlier start (kept in ${cache.folder}).`,
      );
    } else {
      progress(`${label}: validating and compiling ${file} …`);
      const loaded = await product.loadSpecFile(file, product.findSpecProblems);
      const problem = (/** @type {string} */ text) =>
        fail(
          `- SPEC_FILE: ${text}\n  Fix: correct the spec where each line above says (a JSON pointer, or a line and column) as its rule says, or choose another file.`,
        );
      if (!loaded.ok) problem(loaded.message);
      try {
        compact = product.compileSpec(loaded.doc, { label: file });
      } catch (error) {
        problem(String(/** @type {Error} */ (error)?.message ?? error));
      }
      notes = loaded.notes;
      cache.write(file, { compact, notes, files: loaded.files, remote: loaded.remote });
    }
    const text = JSON.stringify(compact);
    const noted = notes.length > 0 ? ` (${notes.join("; ")})` : "";
    log(
      `compile-spec: ${name}: ${compact.operations.length} operations, ${compact.cycles.length} cycle group(s), ${text.length} bytes${noted}`,
    );
    launchSpecs[name] = compact;
    specTexts[name] = text;
    settings.SPEC ??= name;
  }

  // The Worker's own check, run here so a bad setting stops the start.
  const servers = (/** @type {string} */ name) => {
    try {
      return JSON.parse(specTexts[name] ?? "{}").servers ?? [];
    } catch {
      return [];
    }
  };
  const checked = product.readConfig(
    { SPEC: "demo-api", APPROVALS: "off", ...settings },
    Object.keys(specTexts),
    servers,
    // A missing API_TOKEN is noted below unless the spec defines no authentication.
    (/** @type {string} */ name) => {
      try {
        return product.specDefinesAuth(JSON.parse(specTexts[name] ?? "{}"));
      } catch {
        return true;
      }
    },
  );
  if (!checked.ok) fail(product.formatProblems(checked.problems));
  for (const warning of checked.config.warnings) warn(`${label}: note: ${warning}`);

  // /mcp's tools/list in o200k tokens, counted here (the Worker ships no tokenizer) over the text
  // the Worker will list for these settings; the status page shows it (src/app/tools-list-count.ts).
  const measured = await product.measureToolsList(
    specTexts[checked.config.specName],
    product.apiToolText(checked.config),
  );
  const launchTokens = { [measured.digest]: { tokens: measured.tokens, tools: measured.perTool } };

  // The operator's read-only skills (SKILLS_DIR): read and checked here, like a save, so a
  // malformed SKILL.md stops the start naming the folder and the problem.
  /** @type {unknown[]} */
  let operatorSkills = [];
  const skillsDir = env.SKILLS_DIR?.trim();
  if (skillsDir) {
    /** @type {{ folder: string, files: Record<string, string> }[]} */
    let folders = [];
    try {
      folders = readSkillFolders(resolve(skillsDir));
    } catch (error) {
      fail(`- SKILLS_DIR: ${/** @type {Error} */ (error).message}`);
    }
    const read = product.readSkillsDir(folders, checked.config.skills.limits);
    if (!read.ok)
      fail(
        `- SKILLS_DIR: ${read.message}\n  Fix: correct that folder (docs/skills.md, "Operator skills", shows the layout) or remove it.`,
      );
    operatorSkills = read.skills;
    log(
      `${label}: ${operatorSkills.length} operator skill(s) from ${resolve(skillsDir)} (read-only).`,
    );
  }

  const runners = runnerCount(env.SANDBOX_RUNNERS);
  if (!runners.ok) fail(runners.message);
  const maxRuns = maxRunsSetting(env.SANDBOX_RUNNER_MAX_RUNS);
  if (!maxRuns.ok) fail(maxRuns.message);
  const logRequests = logRequestsSetting(env.LOG_REQUESTS);
  if (!logRequests.ok) fail(logRequests.message);
  if (await portInUse(Number(port)))
    fail(
      `- PORT: 127.0.0.1:${port} is in use by another program.\n  Fix: stop what uses the port, or choose another: ${label === "npm start" ? "PORT=8788 npm start" : "--port 8788"}`,
    );
  const bodyBudget = bodyBudgetSetting(env.FRONT_BODY_BUDGET_MB);
  if (!bodyBudget.ok) fail(bodyBudget.message);
  // The front's own options (front.mjs createFront): the memory budget for request bodies, and
  // the key it checks from a request's headers before reading its body (the Worker checks too).
  const front = {
    bodyBudgetBytes: bodyBudget.bytes,
    ...(checked.config.apiKey ? { apiKey: checked.config.apiKey } : {}),
  };

  const what =
    checked.config.api.kind === "demo"
      ? "the offline demo API"
      : `${new URL(checked.config.api.baseUrl).origin}`;
  // Origins only: a URL's path or query may carry a token.
  const wrapped =
    checked.config.upstream.kind === "demo"
      ? "wraps the demo upstream"
      : checked.config.upstream.kind === "off"
        ? `is off (${label === "npm start" ? "UPSTREAM_MCP_URL=<url>" : "--upstream <url>"} wraps an MCP server there)`
        : `wraps ${checked.config.upstream.servers
            .map((/** @type {{ name: string, url: string }} */ s) =>
              s.name ? `${s.name} (${new URL(s.url).origin})` : new URL(s.url).origin,
            )
            .join(", ")}`;
  log(
    `${label}: /mcp serves spec "${checked.config.specName}" → ${what} (tools/list: ${measured.tokens} o200k tokens); /mcp/code ${wrapped}.`,
  );
  progress(`${label}: starting the local Workers runtime (workerd; a few seconds) …`);

  const bindings = {
    ...settings,
    ...(Object.keys(launchSpecs).length > 0
      ? { [product.LAUNCH_SPECS_VAR]: JSON.stringify(launchSpecs) }
      : {}),
    [product.LAUNCH_TOKENS_VAR]: JSON.stringify(launchTokens),
    ...(operatorSkills.length > 0
      ? { [product.LAUNCH_SKILLS_VAR]: JSON.stringify(operatorSkills) }
      : {}),
  };
  return {
    port: Number(port),
    runners: runners.count,
    maxRuns: maxRuns.runs,
    runTimeoutMs: checked.config.limits.timeoutMs ?? product.DEFAULT_LIMITS.timeoutMs,
    logRequests: logRequests.on,
    front,
    bindings,
  };
}
