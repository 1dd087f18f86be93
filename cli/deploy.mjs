// `code-mode-mcp deploy`: `wrangler deploy` of the prebuilt product Worker. In a clone the build
// steps run first (build:worker, which runs wrangler.jsonc's build: sandbox modules and specs/);
// a published package ships them built. Either way wrangler never deploys an unbuilt tree.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT, WORKER_CONFIG, wranglerBin } from "./runtime-paths.mjs";

/**
 * Builds (in a clone) and deploys.
 * @param {object} options
 * @param {boolean} options.dryRun - bundle and check only (`wrangler deploy --dry-run`)
 * @param {string[]} options.passThrough - more `wrangler deploy` options (e.g. --name)
 * @param {(line: string) => void} options.progress - stderr
 * @returns {number} the exit code
 */
export function deploy({ dryRun, passThrough, progress }) {
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
  const out = dryRun ? mkdtempSync(join(tmpdir(), "code-mode-mcp-dry-run-")) : undefined;
  const args = [
    "deploy",
    "--config",
    WORKER_CONFIG,
    ...(out ? ["--dry-run", "--outdir", out] : []),
  ];
  progress(`code-mode-mcp deploy: wrangler ${[...args, ...passThrough].join(" ")}`);
  const run = spawnSync(process.execPath, [wranglerBin(), ...args, ...passThrough], {
    stdio: "inherit",
  });
  if (out) rmSync(out, { recursive: true, force: true });
  if (run.status === 0 && !dryRun)
    progress(
      "code-mode-mcp deploy: done. Settings are Worker vars; credentials go in secrets: npx wrangler secret put API_TOKEN --name <worker>",
    );
  return run.status ?? 1;
}
