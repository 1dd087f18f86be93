// `code-mode-mcp deploy`: `wrangler deploy` of the prebuilt product Worker. In a clone the build
// steps run first (build:worker, which runs wrangler.jsonc's build: sandbox modules and specs/);
// a published package ships them built. Either way wrangler never deploys an unbuilt tree.
// Secrets set in deploy's environment (the product's own names only: API_TOKEN, MCP_API_KEY, …)
// go up with the version through `--secrets-file`, a 0600 file in a private folder removed on
// every way out (secrets-file-run.mjs), and the switches that decide who may call
// (ALLOW_ANONYMOUS, OAUTH, FORWARD_CALLER_TOKEN) as vars; a credential with no caller check is
// refused before anything is built (deploy-guard.mjs). Secret values are never on a command
// line or in output: only their names are printed. A dry run writes no secret anywhere: it names
// the secrets a deploy would upload and bundles without them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deploySecrets, unguardedDeploy } from "./deploy-guard.mjs";
import { PACKAGE_ROOT, WORKER_CONFIG, wranglerBin } from "./runtime-paths.mjs";
import { runWithSecretsFile } from "./secrets-file-run.mjs";

/** Switches deploy passes from its environment to the Worker as vars. */
const SWITCHES = ["ALLOW_ANONYMOUS", "OAUTH", "FORWARD_CALLER_TOKEN"];

/**
 * Builds (in a clone) and deploys.
 * @param {object} options
 * @param {boolean} options.dryRun - bundle and check only (`wrangler deploy --dry-run`)
 * @param {string[]} options.passThrough - more `wrangler deploy` options (e.g. --name)
 * @param {(line: string) => void} options.progress - stderr
 * @param {Record<string, string | undefined>} [options.env] - where secrets and switches are read
 * @param {string} [options.wrangler] - wrangler's entry script (tests: a stand-in)
 * @param {string} [options.config] - the prebuilt Worker's config (tests: a stand-in)
 * @param {boolean} [options.build] - run the build steps first (default: in a clone)
 * @param {string} [options.tmp] - where the secrets file's private folder is made
 * @returns {Promise<number>} the exit code
 */
export async function deploy({
  dryRun,
  passThrough,
  progress,
  env = process.env,
  wrangler,
  config = WORKER_CONFIG,
  build,
  tmp = tmpdir(),
}) {
  const unguarded = unguardedDeploy(env, configVars(config));
  if (unguarded !== undefined) {
    console.error(`code-mode-mcp ${unguarded}`);
    return 1;
  }
  const buildScript = join(PACKAGE_ROOT, "scripts/build-worker.mjs");
  if (build ?? (existsSync(buildScript) && existsSync(join(PACKAGE_ROOT, "src")))) {
    progress("code-mode-mcp deploy: building (sandbox modules, specs, Worker bundle) …");
    const built = spawnSync(process.execPath, [buildScript], {
      stdio: "inherit",
      cwd: PACKAGE_ROOT,
    });
    if (built.status !== 0) {
      console.error("code-mode-mcp deploy: the build failed (above); nothing was deployed.");
      return 1;
    }
  }
  if (!existsSync(config)) {
    console.error(
      `code-mode-mcp deploy: the prebuilt Worker is missing (${config}).\n  Fix: in a clone, run npm run build:worker.`,
    );
    return 1;
  }
  const secrets = deploySecrets(env);
  const names = Object.keys(secrets).join(", ");
  const switches = SWITCHES.filter((name) => (env[name] ?? "").trim() !== "").flatMap((name) => [
    "--var",
    `${name}:${env[name]?.trim()}`,
  ]);
  // A dry run's bundle goes to a folder of its own, removed after.
  const out = dryRun ? mkdtempSync(join(tmp, "code-mode-mcp-dry-run-")) : undefined;
  const args = [
    "deploy",
    "--config",
    config,
    ...(out ? ["--dry-run", "--outdir", join(out, "bundle")] : []),
    ...switches,
  ];
  // Secret names only, never their values, in what is printed.
  const shown = names && !dryRun ? [`--secrets-file <${names}>`] : [];
  progress(`code-mode-mcp deploy: wrangler ${[...args, ...shown, ...passThrough].join(" ")}`);
  if (dryRun && names)
    progress(
      `code-mode-mcp deploy: a deploy would upload these secrets from the environment: ${names} (a dry run writes none of them anywhere)`,
    );
  let code;
  try {
    code = await runWithSecretsFile({
      command: process.execPath,
      args: [wrangler ?? wranglerBin(), ...args, ...passThrough],
      // Nothing is uploaded in a dry run, so no secret goes to disk for it.
      secrets: dryRun ? {} : secrets,
      tmp,
      // Wrangler writes every log line, debug ones included, to ~/.wrangler/logs; unsanitized
      // (WRANGLER_LOG_SANITIZE=false left in a shell), those hold the upload's body with each
      // secret's value. Sanitized, they say the body was omitted.
      env: { ...process.env, WRANGLER_LOG_SANITIZE: "true" },
    });
  } finally {
    if (out) rmSync(out, { recursive: true, force: true });
  }
  if (code === 0 && !dryRun)
    progress(
      "code-mode-mcp deploy: done. Settings are Worker vars; credentials go in secrets: npx wrangler secret put API_TOKEN --name <worker>",
    );
  return code;
}

/**
 * @param {string} config - the prebuilt Worker's wrangler config
 * @returns {Record<string, unknown>} its vars (none when it is not built yet)
 */
function configVars(config) {
  try {
    return JSON.parse(readFileSync(config, "utf8")).vars ?? {};
  } catch {
    return {};
  }
}
