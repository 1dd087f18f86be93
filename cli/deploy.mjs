// `code-mode-mcp deploy`: `wrangler deploy` of the prebuilt product Worker. In a clone the build
// steps run first (build:worker, which runs wrangler.jsonc's build: sandbox modules and specs/);
// a published package ships them built. Either way wrangler never deploys an unbuilt tree.
// Secrets set in deploy's environment (the product's own names only: API_TOKEN, MCP_API_KEY, …)
// go up with the version through `--secrets-file`, a 0600 file in a private folder removed on
// every way out (secrets-file-run.mjs), and the switches that decide who may call
// (ALLOW_ANONYMOUS, OAUTH, FORWARD_CALLER_TOKEN) as vars; a credential with no caller check is
// refused before anything is built (deploy-guard.mjs). Secret values are never on a command
// line or in output: only their names are printed. A dry run writes no secret anywhere: it names
// the secrets a deploy would upload and bundles without them. SKILLS_DIR in the environment
// bundles the operator's read-only skills with the Worker (deploy-skills.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { deploySecrets, unguardedDeploy } from "./deploy-guard.mjs";
import { shortSecrets } from "./deploy-secret-lengths.mjs";
import { readOperatorSkills, stageWithSkills } from "./deploy-skills.mjs";
import { PACKAGE_ROOT, PRODUCT_MODULE, WORKER_CONFIG, wranglerBin } from "./runtime-paths.mjs";
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
 * @param {{ readSkillsDir: Function, BUNDLED_SKILLS_KEY: string }} [options.product] - the
 *   product module's skill checks (default: the built one; tests: the sources)
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
  product,
}) {
  const unguarded = unguardedDeploy(env, configVars(config));
  if (unguarded !== undefined) {
    console.error(`code-mode-mcp ${unguarded}`);
    return 1;
  }
  const short = shortSecrets(deploySecrets(env));
  if (short !== undefined) {
    console.error(`code-mode-mcp ${short}`);
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
  // The operator's skills: checked before anything is uploaded; a bad one stops the deploy.
  const skillsDir = (env.SKILLS_DIR ?? "").trim();
  let staged;
  if (skillsDir !== "") {
    const checks = product ?? (await import(PRODUCT_MODULE));
    const read = readOperatorSkills(skillsDir, checks);
    if (!read.ok) {
      console.error(
        `code-mode-mcp deploy: SKILLS_DIR: ${read.message}\n  Fix: correct that folder (docs/skills.md, "Operator skills", shows the layout) or unset SKILLS_DIR. Nothing was deployed.`,
      );
      return 1;
    }
    staged = stageWithSkills({ config, skills: read.skills, key: checks.BUNDLED_SKILLS_KEY, tmp });
    progress(
      `code-mode-mcp deploy: bundling ${read.skills.length} operator skill(s) from ${resolve(skillsDir)} (read-only).`,
    );
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
    staged?.config ?? config,
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
    if (staged) rmSync(staged.dir, { recursive: true, force: true });
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
