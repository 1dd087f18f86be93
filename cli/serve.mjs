// The one launcher behind `npm start` and `code-mode-mcp serve`: reads the settings the product
// defines (src/app/config/setting-names.ts) from an environment, checks them with the Worker's own check
// (src/app/config/config.ts), validates and compiles SPEC_FILE in Node (swagger-parser cannot run in
// workerd) and hands it to the prebuilt Worker in the LAUNCH_SPECS var (src/app/config/launch-specs.ts),
// with the o200k count of what /mcp will list (LAUNCH_TOOLS_LIST_TOKENS; the Worker has no tokenizer),
// then serves 127.0.0.1:PORT through the supervisor (cli/local-server/), which keeps a healthy
// host runtime and its sandbox runners behind it. Bad configuration stops here, before any
// runtime starts, with the setting's name and the fix.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { supervise } from "./local-server/supervise.mjs";
import { workerdV8Flags } from "./local-server/v8-flags.mjs";
import { maxRunsSetting } from "./local-server/runner-retirement.mjs";
import {
  hostMessage,
  logRequestsSetting,
  runnerCount,
  runnerMessage,
} from "./local-server/worker-options.mjs";
import { PRODUCT_MODULE, RUNNER_SCRIPT, WORKER_CONFIG } from "./runtime-paths.mjs";
import { openSpecCache, specCacheFolder } from "./spec-cache.mjs";

/**
 * @typedef {object} ServeOptions
 * @property {string} label - message prefix: "npm start" or "code-mode-mcp"
 * @property {any} product - the product module (cli/product/, prebuilt as dist/cli/product.js)
 * @property {NodeJS.ProcessEnv} env - where the settings come from (SPEC_FILE, PORT, PERSIST_TO too)
 * @property {string} persist - the runtime's local data folder (`--persist-to`)
 * @property {(line: string) => void} log - where status lines go (stderr under --stdio)
 * @property {(line: string) => void} progress - progress on slow steps (always stderr)
 * @property {() => void} [cleanup] - more to remove on exit
 */

/**
 * Checks the settings in `env` and serves them; exits the process on bad configuration or at the
 * end. Resolves never.
 * @param {ServeOptions} options
 * @returns {Promise<void>}
 */
export async function serve({ label, product, env, persist, log, progress, cleanup }) {
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    console.error(`\n${label}: the configuration is invalid, nothing was started.\n${message}\n`);
    // A refused start leaves nothing behind (the launcher's temporary data folder included).
    cleanup?.();
    process.exit(1);
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
      console.warn(`${label}: SPEC_FILE ${name} replaces the compiled spec of the same name.`);
    const cache = openSpecCache(specCacheFolder(env), PRODUCT_MODULE);
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
  for (const warning of checked.config.warnings) console.warn(`${label}: note: ${warning}`);

  // /mcp's tools/list in o200k tokens, counted here (the Worker ships no tokenizer) over the text
  // the Worker will list for these settings; the status page shows it (src/app/tools-list-count.ts).
  const measured = await product.measureToolsList(
    specTexts[checked.config.specName],
    product.apiToolText(checked.config),
  );
  const launchTokens = { [measured.digest]: { tokens: measured.tokens, tools: measured.perTool } };

  const runners = runnerCount(env.SANDBOX_RUNNERS);
  if (!runners.ok) fail(runners.message);
  const maxRuns = maxRunsSetting(env.SANDBOX_RUNNER_MAX_RUNS);
  if (!maxRuns.ok) fail(maxRuns.message);
  const logRequests = logRequestsSetting(env.LOG_REQUESTS);
  if (!logRequests.ok) fail(logRequests.message);

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

  // The prebuilt Worker's configuration, given straight to Miniflare. The settings (secrets
  // among them) and SPEC_FILE's compiled spec go to the runtime over its IPC channel: never
  // into a file or a process environment (a large spec there made spawning workerd fail, E2BIG).
  const worker = JSON.parse(readFileSync(WORKER_CONFIG, "utf8"));
  const bindings = {
    ...settings,
    ...(Object.keys(launchSpecs).length > 0
      ? { [product.LAUNCH_SPECS_VAR]: JSON.stringify(launchSpecs) }
      : {}),
    [product.LAUNCH_TOKENS_VAR]: JSON.stringify(launchTokens),
  };
  await supervise({
    port: Number(port),
    runners: runners.count,
    maxRunsPerRunner: maxRuns.runs,
    logRequests: logRequests.on,
    host: (addresses) =>
      hostMessage({
        configFile: WORKER_CONFIG,
        config: worker,
        bindings,
        persist,
        runners: addresses,
      }),
    runner: (rpcPort) =>
      runnerMessage({
        scriptPath: RUNNER_SCRIPT,
        compatibilityDate: worker.compatibility_date,
        rpcPort,
      }),
    env: {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      MINIFLARE_WORKERD_V8_FLAGS: workerdV8Flags(process.env.MINIFLARE_WORKERD_V8_FLAGS),
    },
    log,
    label,
    cleanup: () => cleanup?.(),
  });
}
