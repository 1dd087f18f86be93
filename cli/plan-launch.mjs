// The launch check's work (run in plan-launch-child.mjs, a process of its own): reads the
// settings the product defines from an environment, checks them with the Worker's own check
// (src/app/config/config.ts), validates and compiles SPEC_FILE in Node (swagger-parser cannot run
// in workerd) or reads it from the spec cache, counts /mcp's tools/list in o200k tokens, and
// plans the launch: the port, the runners, the host Worker's bindings. Apart from serve.mjs so
// that the check's process loads none of the supervisor (issue #43: a warm desktop launch waits
// for this process).
import { existsSync, statSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { readSkillFolders } from "./skills.mjs";
import { defaultRunnerCount } from "./local-server/worker-options.mjs";
import { portInUse } from "./port-in-use.mjs";
import { PRODUCT_MODULE } from "./runtime-paths.mjs";
import { specCacheKeyFile } from "./kept/spec-cache-key.mjs";
import { openSpecCache, specCacheFolder } from "./kept/spec-cache.mjs";
import {
  openToolsListCache,
  toolsListCacheFolder,
  toolsListKey,
} from "./kept/tools-list-cache.mjs";
import { asciiJson } from "./ascii-json.mjs";

/**
 * @typedef {object} LaunchPlan
 * @property {number} port
 * @property {number} runners
 * @property {number} maxRuns
 * @property {number} runTimeoutMs
 * @property {boolean} logRequests
 * @property {boolean} warmStandby - keep a warm standby host runtime (`HOST_STANDBY=warm`)
 * @property {{ bodyBudgetBytes: number, maxConnections: number, allowedHostnames: string[], apiKey?: string }} front - the
 *   front's own limits and checks
 * @property {Record<string, string>} bindings - the host Worker's settings and vars
 * @property {{ binding: string, name: string }} [launchSpec] - the binding that holds SPEC_FILE's
 *   compiled spec, and its name (cli/kept/launch-memo.mjs reads it from the spec cache again)
 */

/** What {@link planLaunch}'s `fail` throws: the configuration's problem, for the caller. */
export class LaunchProblem extends Error {}

/**
 * Checks the settings in `env` and plans the launch: the port, the runners, the host Worker's
 * bindings (with SPEC_FILE validated and compiled, or taken from the spec cache). Bad
 * configuration throws a {@link LaunchProblem} with the setting's name and the fix.
 * @param {{ label: string, product: any, env: NodeJS.ProcessEnv, log: (line: string) => void, progress: (line: string) => void, warn: (line: string) => void, productFile?: string }} options
 *   productFile: the product module's file, whose bytes name what it compiled and counted (tests)
 * @returns {Promise<LaunchPlan>}
 */
export async function planLaunch({
  label,
  product,
  env,
  log,
  progress,
  warn,
  productFile = PRODUCT_MODULE,
}) {
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    throw new LaunchProblem(message);
  };
  // The launcher's own settings (PORT, SANDBOX_RUNNERS, …): rows of the product's settings
  // table (src/app/config/launcher-settings.ts), checked before anything else is done.
  const launcher = product.readLauncherSettings(env);
  if (launcher.problems.length > 0)
    fail(
      product.formatProblems(
        launcher.problems.map((/** @type {{ setting: string, fix: string }} */ p) =>
          p.setting === "PORT"
            ? { ...p, fix: label === "npm start" ? "PORT=8787 npm start" : "--port 8787" }
            : p,
        ),
      ),
    );
  /** @type {{ PORT: number, SPEC_FILE?: string, SANDBOX_RUNNERS?: number, SANDBOX_RUNNER_MAX_RUNS: number, LOG_REQUESTS: boolean, FRONT_BODY_BUDGET_MB: number, FRONT_MAX_CONNECTIONS: number, HOST_STANDBY: boolean, SKILLS_DIR?: string }} */
  const given = launcher.values;
  const port = String(given.PORT);

  /** @type {Record<string, string>} */
  const settings = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && product.isSettingName(name)) settings[name] = value;

  // The specs built into the Worker (specs/ at build time; the product module is built with it).
  /** @type {Record<string, string>} */
  const specTexts = { ...product.COMPACT_SPECS };

  /** @type {Record<string, string>} SPEC_FILE's compiled spec as text, by name */
  const launchSpecs = {};
  // Each spec parsed at most once, and SPEC_FILE's never: its compiled object is at hand. The
  // launch used to parse that 4 MB text a dozen times (issue #43: 1.7 s of a warm launch's
  // 2.5 s here at load 15).
  /** @type {Map<string, any>} */
  const parsedSpecs = new Map();
  // What the check reads of SPEC_FILE's spec, kept with it (spec-cache.mjs): a warm launch
  // parses it only to count a tools/list that was not kept.
  /** @type {Map<string, SpecFacts>} */
  const factsOf = new Map();
  /** @param {string} name */
  const parsedSpec = (name) => {
    if (!parsedSpecs.has(name)) parsedSpecs.set(name, JSON.parse(specTexts[name] ?? "{}"));
    return parsedSpecs.get(name);
  };
  const specFile = given.SPEC_FILE;
  if (specFile && /^[a-z][a-z0-9+.-]*:\/\//i.test(specFile))
    fail(
      `- SPEC_FILE: ${specFile} is a URL, and URLs are not fetched: download it first.\n  Fix: curl -fLo openapi.json '${specFile}', then SPEC_FILE=./openapi.json (--spec ./openapi.json).`,
    );
  if (specFile) {
    const file = resolve(specFile);
    if (!existsSync(file))
      fail(
        `- SPEC_FILE: ${file} does not exist.\n  Fix: point SPEC_FILE (--spec) at an OpenAPI 2.0/3.0/3.1 file (JSON or YAML).`,
      );
    // A folder, a device or a pipe was told "does not exist", which sent the user looking for
    // a typo in a path that is there.
    if (!statSync(file).isFile())
      fail(
        `- SPEC_FILE: ${file} is not a file (a folder, a device or a pipe).\n  Fix: point SPEC_FILE (--spec) at an OpenAPI 2.0/3.0/3.1 file (JSON or YAML).`,
      );
    const name = basename(file, extname(file));
    if (specTexts[name] && settings.SPEC === undefined)
      warn(`${label}: SPEC_FILE ${name} replaces the compiled spec of the same name.`);
    const cache = openSpecCache(specCacheFolder(env), productFile, specCacheKeyFile(env));
    /** @type {string} */
    let text;
    /** @type {string[]} */
    let notes;
    /** @type {SpecFacts} */
    let facts;
    const kept = cache.read(file);
    if (kept && isSpecFacts(kept.facts)) {
      ({ text, notes, facts } = kept);
      progress(
        `${label}: ${file} was validated and compiled by an earlier start (kept in ${cache.folder}).`,
      );
    } else {
      progress(`${label}: validating and compiling ${file} …`);
      const loaded = await product.loadSpecFile(file, product.findSpecProblems);
      const problem = (/** @type {string} */ message) =>
        fail(
          `- SPEC_FILE: ${message}\n  Fix: correct the spec where each line above says (a JSON pointer, or a line and column) as its rule says, or choose another file.`,
        );
      if (!loaded.ok) problem(loaded.message);
      /** @type {any} */
      let compact;
      try {
        compact = product.compileSpec(loaded.doc, { label: file });
      } catch (error) {
        // The compiler's message may quote the spec: shown on the terminal.
        problem(product.terminalText(/** @type {Error} */ (error)?.message ?? error));
      }
      notes = loaded.notes;
      // In ASCII: the host keeps this text for its life, and one character past Latin-1 would
      // make V8 hold all of it at two bytes a character (cli/ascii-json.mjs).
      text = asciiJson(compact);
      facts = specFacts(product, compact);
      parsedSpecs.set(name, compact);
      cache.write(file, { text, notes, facts, files: loaded.files, remote: loaded.remote });
    }
    const noted = notes.length > 0 ? ` (${notes.join("; ")})` : "";
    log(
      `compile-spec: ${name}: ${facts.operations} operations, ${facts.cycles} cycle group(s), ${text.length} bytes${noted}`,
    );
    launchSpecs[name] = text;
    specTexts[name] = text;
    factsOf.set(name, facts);
    settings.SPEC ??= name;
  }

  // The Worker's own check, run here so a bad setting stops the start.
  const servers = (/** @type {string} */ name) => {
    try {
      return factsOf.get(name)?.servers ?? parsedSpec(name).servers ?? [];
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
        return factsOf.get(name)?.definesAuth ?? product.specDefinesAuth(parsedSpec(name));
      } catch {
        return true;
      }
    },
  );
  if (!checked.ok) fail(product.formatProblems(checked.problems));
  for (const warning of checked.config.warnings) warn(`${label}: note: ${warning}`);

  // /mcp's tools/list in o200k tokens, counted here (the Worker ships no tokenizer) over the text
  // the Worker will list for these settings; the status page shows it (src/app/tools-list-count.ts).
  // Kept between launches for the same spec text, tool text and product (tools-list-cache.mjs):
  // counting loads the tokenizer and lists through an MCP client, ~0.5 s a launch (issue #43).
  const toolText = product.apiToolText(checked.config);
  const counts = openToolsListCache(toolsListCacheFolder(env), specCacheKeyFile(env));
  /** @type {string | undefined} */
  let countKey;
  try {
    countKey = toolsListKey(
      productFile,
      specTexts[checked.config.specName] ?? "",
      JSON.parse(JSON.stringify(toolText)),
    );
  } catch {
    // the product module unreadable: counted, not kept
  }
  /** @type {import("./kept/tools-list-cache.mjs").ToolsListMeasure} */
  let measured;
  const kept = countKey === undefined ? undefined : counts.read(countKey);
  if (kept) measured = kept;
  else {
    measured = await product.measureToolsList(parsedSpec(checked.config.specName), toolText);
    if (countKey !== undefined) counts.write(countKey, measured);
  }
  const launchTokens = { [measured.digest]: { tokens: measured.tokens, tools: measured.perTool } };

  // The operator's read-only skills (SKILLS_DIR): read and checked here, like a save, so a
  // malformed SKILL.md stops the start naming the folder and the problem.
  /** @type {unknown[]} */
  let operatorSkills = [];
  const skillsDir = given.SKILLS_DIR;
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

  const runners = given.SANDBOX_RUNNERS ?? defaultRunnerCount();
  if (await portInUse(Number(port)))
    fail(
      `- PORT: 127.0.0.1:${port} is in use by another program.\n  Fix: stop what uses the port, or choose another: ${label === "npm start" ? "PORT=8788 npm start" : "--port 8788"}`,
    );
  // The front's own options (front.mjs createFront): the memory budget for request bodies, and
  // the host names and the key it checks from a request's headers before reading its body (the
  // Worker checks too).
  const front = {
    bodyBudgetBytes: given.FRONT_BODY_BUDGET_MB * 1_048_576,
    maxConnections: given.FRONT_MAX_CONNECTIONS,
    allowedHostnames: checked.config.allowedHostnames,
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
      ? {
          // asciiJson of { name: compact }, from the texts made above (not a second
          // stringify of the same 4 MB).
          [product.LAUNCH_SPECS_VAR]: `{${Object.entries(launchSpecs)
            .map(([n, text]) => `${asciiJson(n)}:${text}`)
            .join(",")}}`,
        }
      : {}),
    [product.LAUNCH_TOKENS_VAR]: JSON.stringify(launchTokens),
    ...(operatorSkills.length > 0
      ? { [product.LAUNCH_SKILLS_VAR]: JSON.stringify(operatorSkills) }
      : {}),
  };
  return {
    port: Number(port),
    runners,
    maxRuns: given.SANDBOX_RUNNER_MAX_RUNS,
    runTimeoutMs: checked.config.limits.timeoutMs ?? product.DEFAULT_LIMITS.timeoutMs,
    logRequests: given.LOG_REQUESTS,
    warmStandby: given.HOST_STANDBY,
    front,
    bindings,
    ...(specFile && Object.keys(launchSpecs).length === 1
      ? {
          launchSpec: {
            binding: product.LAUNCH_SPECS_VAR,
            name: /** @type {string} */ (Object.keys(launchSpecs)[0]),
          },
        }
      : {}),
  };
}

/**
 * @typedef {object} SpecFacts - what the launch check reads of a compiled spec, kept with it
 * @property {number} operations
 * @property {number} cycles - cycle groups
 * @property {unknown[]} servers - its `servers` (where API_TOKEN goes without API_BASE_URL)
 * @property {boolean} definesAuth - whether it defines authentication (a missing API_TOKEN noted)
 */

/**
 * A compiled spec's {@link SpecFacts}, as the check would read them off the spec itself.
 * @param {any} product - the product module
 * @param {any} compact - the compiled spec
 * @returns {SpecFacts}
 */
export function specFacts(product, compact) {
  let definesAuth = true;
  try {
    definesAuth = Boolean(product.specDefinesAuth(compact));
  } catch {
    // noted as if it did: the check's own answer when it cannot tell
  }
  return {
    operations: compact.operations.length,
    cycles: compact.cycles.length,
    servers: Array.isArray(compact.servers) ? compact.servers : [],
    definesAuth,
  };
}

/**
 * Whether a kept entry's facts have the shape {@link specFacts} writes (an older or other
 * entry's are not used: the spec is compiled again).
 * @param {unknown} facts
 * @returns {facts is SpecFacts}
 */
export function isSpecFacts(facts) {
  const f = /** @type {any} */ (facts);
  return (
    Number.isInteger(f?.operations) &&
    Number.isInteger(f.cycles) &&
    Array.isArray(f.servers) &&
    typeof f.definesAuth === "boolean"
  );
}
