// `code-mode-mcp deploy`: `wrangler deploy` of the prebuilt product Worker. In a clone the build
// steps run first (build:worker, which runs wrangler.jsonc's build: sandbox modules and specs/);
// a published package ships them built. Either way wrangler never deploys an unbuilt tree.
// Secrets set in deploy's environment (API_TOKEN, MCP_API_KEY, …) go up with the version
// (`--secrets-file`, a 0600 file removed after), and the switches that decide who may call
// (ALLOW_ANONYMOUS, OAUTH, FORWARD_CALLER_TOKEN) as vars; a credential with no caller check is
// refused before anything is built (deploy-guard.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deploySecrets, unguardedDeploy } from "./deploy-guard.mjs";
import { PACKAGE_ROOT, WORKER_CONFIG, wranglerBin } from "./runtime-paths.mjs";

/** Switches deploy passes from its environment to the Worker as vars. */
const SWITCHES = ["ALLOW_ANONYMOUS", "OAUTH", "FORWARD_CALLER_TOKEN"];

/**
 * Builds (in a clone) and deploys.
 * @param {object} options
 * @param {boolean} options.dryRun - bundle and check only (`wrangler deploy --dry-run`)
 * @param {string[]} options.passThrough - more `wrangler deploy` options (e.g. --name)
 * @param {(line: string) => void} options.progress - stderr
 * @param {Record<string, string | undefined>} [options.env] - where secrets and switches are read
 * @returns {number} the exit code
 */
export function deploy({ dryRun, passThrough, progress, env = process.env }) {
  const unguarded = unguardedDeploy(env, configVars());
  if (unguarded !== undefined) {
    console.error(`code-mode-mcp ${unguarded}`);
    return 1;
  }
  const build = join(PACKAGE_ROOT, "scripts/build-worker.mjs");
  if (existsSync(build) && existsSync(join(PACKAGE_ROOT, "src"))) {
    progress("code-mode-mcp deploy: building (sandbox modules, specs, Worker bundle) …");
    const built = spawnSync(process.execPath, [build], { stdio: "inherit", cwd: PACKAGE_ROOT });
    if (built.status !== 0) {
      console.error("code-mode-mcp deploy: the build failed (above); nothing was deployed.");
      return 1;
    }
  }
  if (!existsSync(WORKER_CONFIG)) {
    console.error(
      `code-mode-mcp deploy: the prebuilt Worker is missing (${WORKER_CONFIG}).\n  Fix: in a clone, run npm run build:worker.`,
    );
    return 1;
  }
  const work = mkdtempSync(join(tmpdir(), "code-mode-mcp-deploy-"));
  const secrets = deploySecrets(env);
  const secretsFile = join(work, "secrets.json");
  if (Object.keys(secrets).length > 0)
    writeFileSync(secretsFile, JSON.stringify(secrets), { mode: 0o600 });
  const switches = SWITCHES.filter((name) => (env[name] ?? "").trim() !== "").flatMap((name) => [
    "--var",
    `${name}:${env[name]?.trim()}`,
  ]);
  const args = [
    "deploy",
    "--config",
    WORKER_CONFIG,
    ...(dryRun ? ["--dry-run", "--outdir", join(work, "out")] : []),
    ...switches,
  ];
  // Secret names only, never their values, in what is printed.
  const shown = Object.keys(secrets).length
    ? [`--secrets-file <${Object.keys(secrets).join(", ")}>`]
    : [];
  progress(`code-mode-mcp deploy: wrangler ${[...args, ...shown, ...passThrough].join(" ")}`);
  const secretArgs = shown.length ? ["--secrets-file", secretsFile] : [];
  let run;
  try {
    run = spawnSync(process.execPath, [wranglerBin(), ...args, ...secretArgs, ...passThrough], {
      stdio: "inherit",
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (run.status === 0 && !dryRun)
    progress(
      "code-mode-mcp deploy: done. Settings are Worker vars; credentials go in secrets: npx wrangler secret put API_TOKEN --name <worker>",
    );
  return run.status ?? 1;
}

/** @returns {Record<string, unknown>} the prebuilt Worker's vars (none when it is not built yet) */
function configVars() {
  try {
    return JSON.parse(readFileSync(WORKER_CONFIG, "utf8")).vars ?? {};
  } catch {
    return {};
  }
}
