#!/usr/bin/env node
// `npx code-mode-mcp`: the product without a clone. `serve` (the default) runs the same launcher
// as `npm start` (cli/serve.mjs) over the Worker prebuilt into the package (dist/worker/);
// `--stdio` bridges stdin/stdout to it for desktop clients; `check` validates and measures a
// spec; `deploy` runs `wrangler deploy` on the prebuilt Worker; `init` writes a Worker project of
// the user's own (cli/init.mjs); `desktop-config` prints a desktop client's JSON for it
// (cli/desktop-config.mjs). See `--help` (cli/args.mjs).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { answerWithError } from "../cli/answer-with-error.mjs";
import { HELP, parseArgs } from "../cli/args.mjs";
import {
  PACKAGE_ROOT,
  PRODUCT_MODULE,
  WORKER_CONFIG,
  WORKER_SCRIPT,
  checkBuilt,
  findWrangler,
  loadProduct,
  loadStdioBridge,
  wranglerProblem,
} from "../cli/runtime-paths.mjs";
import { answerBeforeServe, refusalChannel } from "../cli/stdio/early-launch.mjs";

const LABEL = "code-mode-mcp";
/** @param {string} line */
const progress = (line) => console.error(line);

const args = parseArgs(process.argv.slice(2));
if (!args.ok) {
  console.error(`${LABEL}: ${args.message}`);
  // A desktop client's command line: the client gets the reason too (answer-with-error.mjs).
  if (process.argv.includes("--stdio")) await answerWithError(`${LABEL}: ${args.message}`);
  process.exit(2);
}
const { parsed } = args;

// --help and --version need nothing but this file: they answer on any Node.js.
if (parsed.command === "help") {
  console.log(HELP);
  process.exit(0);
}
if (parsed.command === "version") {
  console.log(JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version);
  process.exit(0);
}

// wrangler (the local runtime and deploy) runs on this same Node and needs 22 or later.
if (Number(process.versions.node.split(".")[0]) < 22) {
  const message = `${LABEL}: Node.js 22 or later is needed (this is ${process.version}): the Workers runtime's launcher (wrangler) requires it.\n  Fix: install Node.js 22 (https://nodejs.org) and run the command again${parsed.stdio ? ` (a desktop client: point "command" at that Node's npx or node)` : ""}.`;
  console.error(message);
  // A desktop client reads stdout only: answer its first request with the message, so it shows
  // the reason instead of a bare "Connection closed".
  if (parsed.stdio) await answerWithError(message);
  process.exit(1);
}

// serve and deploy run wrangler, a peer dependency: npm installs it (npx too), but an install
// that skips peers does not, and an older one may sit in the project. Say so before anything starts.
if (parsed.command === "serve" || parsed.command === "deploy") {
  const wrangler = findWrangler();
  if (!wrangler.ok) {
    const message = wranglerProblem(LABEL, wrangler.problem);
    console.error(message);
    if (parsed.stdio) await answerWithError(message);
    process.exit(1);
  }
}

// The server's process hosts the front, which needs glibc's malloc settings to give request
// bodies' memory back: it starts again in place with them, before anything is read or started
// (cli/local-server/malloc-env.mjs).
if (parsed.command === "serve") {
  const { restartWithMallocSettings } = await import("../cli/local-server/malloc-env.mjs");
  restartWithMallocSettings();
}

if (parsed.command === "skills") {
  const { skillsCommand } = await import("../cli/skills.mjs");
  process.exit(
    await skillsCommand({
      positional: parsed.positional,
      url: parsed.url,
      env: { ...process.env, ...parsed.settings },
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    }),
  );
}
if (parsed.command === "init") {
  const product = await loadProduct(LABEL);
  const { init } = await import("../cli/init.mjs");
  process.exit(
    await init({
      folder: parsed.positional[0],
      spec: parsed.settings.SPEC_FILE,
      upstream: parsed.settings.UPSTREAM_MCP_URL,
      baseUrl: parsed.settings.API_BASE_URL,
      install: parsed.install,
      oauth: parsed.oauth,
      product,
      progress,
    }),
  );
}
if (parsed.command === "desktop-config") {
  const { runDesktopConfig } = await import("../cli/desktop-config.mjs");
  process.exit(
    runDesktopConfig({
      settings: parsed.settings,
      route: parsed.route,
      name: parsed.name,
      write: parsed.write,
      bin: join(PACKAGE_ROOT, "bin/code-mode-mcp.mjs"),
      progress,
      print: (text) => process.stdout.write(text),
    }),
  );
}
if (parsed.command === "deploy") {
  const { deploy } = await import("../cli/deploy.mjs");
  process.exit(await deploy({ dryRun: parsed.dryRun, passThrough: parsed.passThrough, progress }));
}

// Under --stdio, stdout carries the protocol alone: every other line goes to stderr.
if (parsed.stdio) console.log = console.error;
progress(`${LABEL}: loading …`);
if (parsed.command === "check") {
  const product = await loadProduct(LABEL);
  const { checkSpecFile } = await import("../cli/check.mjs");
  process.exit(
    await checkSpecFile(product, /** @type {string} */ (parsed.positional[0]), progress),
  );
}

// Serving needs only --stdio's bridge here, a bundle of its own (not the product module: ~0.5–1 s
// of CPU to compile and run, issue #43): loaded while the launch check's process loads the
// product and plans the launch (plan-launch-child.mjs), not before.
// A missing build still stops here, with its fix, before anything starts.
checkBuilt(LABEL);
const { planInProcess } = await import("../cli/plan-in-process.mjs");
const { freePort } = await import("../cli/local-server/free-port.mjs");
const { stdioCallerKey } = await import("../cli/local-server/stdio-caller-key.mjs");
/** @type {NodeJS.ProcessEnv} */
const given = { ...process.env, ...parsed.settings };
// Under --stdio the server's port is the bridge's alone: a per-launch key unless the user set a
// caller check (stdio-caller-key.mjs); the bridge sends it.
const { env, key: bridgeKey } = parsed.stdio
  ? stdioCallerKey(given)
  : { env: given, key: undefined };
// And every request on that port must carry this launch's secret, which only the bridge sends
// (front/bridge-only.mjs): a caller check the user set (FORWARD_CALLER_TOKEN) does not keep
// other processes of the machine out.
const { BRIDGE_HEADER, newBridgeSecret } =
  await import("../cli/local-server/front/bridge-only.mjs");
const bridgeSecret = parsed.stdio ? newBridgeSecret() : undefined;
// A desktop client may start several servers at once: --stdio takes a free port of its own.
if (parsed.stdio && parsed.settings.PORT === undefined) env.PORT = String(await freePort());
/** @param {string} line */
const log = (line) => console.log(line);
// Under --stdio this process hashes the product module and the spec file for the kept
// `initialize` answer's name (below), and the check hashed both again for its kept spec and
// tools/list count (~10 ms of CPU per 7 MB): hashed here first, its digests go with the settings.
const { digestsOf } = await import("../cli/kept/file-digest.mjs");
const digests =
  parsed.stdio && !env.SKILLS_DIR
    ? digestsOf([PRODUCT_MODULE, env.SPEC_FILE ? resolve(env.SPEC_FILE) : undefined])
    : [];
// The launch check's process starts first; the supervisor's modules load while it works (a
// warm desktop launch waits for the check: issue #43).
const planned = planInProcess({ label: LABEL, env, log, progress, digests });
const { serve } = await import("../cli/serve.mjs");
const ownData = env.PERSIST_TO === undefined;
const persist = ownData
  ? mkdtempSync(join(tmpdir(), "code-mode-mcp-data-"))
  : resolve(/** @type {string} */ (env.PERSIST_TO));
/** @type {() => void} */
let passed = () => {};
const settingsPassed = new Promise((done) => (passed = () => done(undefined)));
/** @type {() => void} */
let ready = () => {};
// The supervisor says when the server answers (its first host and runners ready): the bridge
// sends the client's first message then, not at the next tick of a /health poll (issue #43).
const serverReady = new Promise((done) => (ready = () => done(undefined)));
// A refused start answers the client through the bridge once the bridge reads stdin (it started
// before the check with an answer kept for `initialize`), else by answerWithError as before.
const { refusal, refuse, bridgeReads, refusedFirst } = refusalChannel();

const base = `http://127.0.0.1:${env.PORT}`;
const codeOnly = env.UPSTREAM_MCP_URL !== undefined && env.SPEC_FILE === undefined;
const route = parsed.route ?? (codeOnly ? "/mcp/code" : "/mcp");
/** @type {any} */
let bridge;
/** @type {import("../cli/kept/early-answers.mjs").EarlyAnswersOf | undefined} */
let early;
/** @type {Promise<void> | undefined} */
let bridged;
/**
 * Runs the bridge until the client leaves.
 * @param {boolean} answerEarly - with the kept `initialize` answers, and the refusal through it
 */
const runBridge = async (answerEarly) => {
  await bridge.runStdioBridge({
    url: `${base}${route}`,
    ...(bridgeKey ? { apiKey: bridgeKey } : {}),
    headers: { [BRIDGE_HEADER]: /** @type {string} */ (bridgeSecret) },
    ready: serverReady,
    log: progress,
    ...(answerEarly && early?.kept ? { kept: early.kept, refusal } : {}),
    ...(early ? { keep: early.keep } : {}),
    // The client closed stdin: it is gone, so stop as on Ctrl-C (the supervisor cleans up).
    // A bridge that answered early reads stdin long before the supervisor listens for that
    // stop (a stop meanwhile ended the process and left its folders): it stops once the server
    // is ready, as a bridge that waited for the check saw the close only then (a refused check
    // exits by itself).
    onClose: () =>
      void (answerEarly ? serverReady : Promise.resolve()).then(() =>
        process.kill(process.pid, "SIGTERM"),
      ),
  });
  progress(`${LABEL}: MCP over stdio ↔ ${base}${route}`);
};
if (parsed.stdio) {
  bridge = await loadStdioBridge(LABEL);
  // The last launch's `initialize` answer for this Worker, spec, settings and route
  // (cli/kept/early-answers.mjs): with one, the bridge reads stdin now and answers `initialize`
  // at once, before the host's start and while the check plans (issue #43: the client waited
  // 1.5–4 s for the host's start); without, it waits for the check as before, so that a
  // refusal has stdin to itself.
  const { earlyAnswersOf } = await import("../cli/kept/early-answers.mjs");
  early = earlyAnswersOf({
    // The port this launch chose for itself is no setting of the user's: not part of the key.
    env: parsed.settings.PORT === undefined ? { ...env, PORT: undefined } : env,
    route,
    workerFiles: [PRODUCT_MODULE, WORKER_CONFIG, WORKER_SCRIPT],
    isSetting: bridge.isLaunchSetting,
  });
  if (early.kept) {
    bridgeReads();
    ({ bridged } = await answerBeforeServe({
      startBridge: () => runBridge(true),
      ownData,
      persist,
    }));
  }
}

const served = serve({
  label: LABEL,
  env,
  persist,
  ownData,
  log,
  progress,
  planned,
  cleanup: () => {
    if (ownData) rmSync(persist, { recursive: true, force: true });
  },
  // Under --stdio a refused start (a missing or broken spec, a bad setting, a port in use)
  // answers the client's `initialize` with the same message before the process exits. Without
  // a kept `initialize` answer the bridge reads stdin only once the settings passed (the
  // client's messages wait in the pipe meanwhile), so the refusal has stdin to itself; with one,
  // the bridge answered `initialize` early and answers the next request with the refusal.
  ...(parsed.stdio ? { refuse, passed, ready, bridgeSecret } : {}),
});

if (parsed.stdio) {
  // The bridge's first request loads Node's fetch (undici: ~0.1 s of a loaded machine) once the
  // server answers, on the way to the client's first answer: loaded once the check passed
  // instead, while the runtimes start and this process waits (issue #43).
  void settingsPassed.then(() =>
    setImmediate(() => void (/** @type {any} */ (globalThis).Headers)),
  );
  if (!bridged && !refusedFirst()) {
    await settingsPassed;
    bridged = runBridge(false);
  }
  await bridged;
}
await served;
