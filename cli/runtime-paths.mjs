// Where the launchers find their parts, in a clone and in an installed package alike: the
// prebuilt Worker and product module under dist/ (npm run build:worker), and wrangler wherever
// npm put it (a peer dependency: the project's own wrangler when it has one).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (the repository root in a clone). */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler config of the prebuilt product Worker. */
export const WORKER_CONFIG = join(PACKAGE_ROOT, "dist/worker/wrangler.json");
/** The bundled product Worker (its `main`). */
export const WORKER_SCRIPT = join(PACKAGE_ROOT, "dist/worker/worker.js");
/** The bundled sandbox runner Worker (src/runner.ts). */
export const RUNNER_SCRIPT = join(PACKAGE_ROOT, "dist/worker/runner.js");
/** The bundled product module (cli/product/). */
export const PRODUCT_MODULE = join(PACKAGE_ROOT, "dist/cli/product.js");
/** The stdio bridge alone (cli/product/stdio-entry.mjs), bundled beside the product module. */
export const STDIO_BRIDGE_MODULE = join(PACKAGE_ROOT, "dist/cli/stdio-bridge.js");

/** The wrangler versions the prebuilt Worker runs on (`^4.124.0`: package.json `peerDependencies`). */
export const WRANGLER_RANGE = String(
  JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).peerDependencies.wrangler,
);

/**
 * Finds the wrangler the launchers run (the local runtime and deploy): a peer dependency, so the
 * project's own wrangler when it has one (npm 7 and later install a missing peer, `npx` too).
 * @param {string} [from] - where resolution starts (a file URL or path; default: this package)
 * @returns {{ ok: true, bin: string, version: string } | { ok: false, problem: string }}
 */
export function findWrangler(from = import.meta.url) {
  /** @type {string} */
  let manifest;
  try {
    manifest = createRequire(from).resolve("wrangler/package.json");
  } catch {
    return { ok: false, problem: "wrangler is not installed" };
  }
  const { version } = JSON.parse(readFileSync(manifest, "utf8"));
  const [major, minor] = String(version).split(".").map(Number);
  const [wantMajor, wantMinor] = WRANGLER_RANGE.slice(1).split(".").map(Number);
  if (major !== wantMajor || /** @type {number} */ (minor) < /** @type {number} */ (wantMinor))
    return {
      ok: false,
      problem: `wrangler ${version} is installed, and ${WRANGLER_RANGE} is needed`,
    };
  return { ok: true, bin: join(dirname(manifest), "bin/wrangler.js"), version };
}

/**
 * What to tell a user whose wrangler is missing or too old: the reason and the install to run.
 * @param {string} label - who asks ("code-mode-mcp")
 * @param {string} problem - from {@link findWrangler}
 * @returns {string}
 */
export function wranglerProblem(label, problem) {
  return `${label}: ${problem}: the local server and deploy run on the Workers runtime through wrangler, a peer dependency of code-mode-mcp.\n  Fix: npm install --save-dev wrangler@${WRANGLER_RANGE} in this project (npx code-mode-mcp installs it itself with npm 7 or later; installs that skip peers, such as --legacy-peer-deps or yarn 1, need it added).`;
}

/** Path of wrangler's bin/wrangler.js (call {@link findWrangler} first for a clear message). */
export function wranglerBin() {
  const found = findWrangler();
  if (!found.ok) throw new Error(wranglerProblem("code-mode-mcp", found.problem));
  return found.bin;
}

/**
 * Imports the prebuilt product module, or says how to build it.
 * @param {string} label - who asks ("npm start", "code-mode-mcp")
 * @returns {Promise<any>}
 */
export async function loadProduct(label) {
  checkBuilt(label);
  return import(PRODUCT_MODULE);
}

/**
 * Imports the prebuilt stdio bridge (`runStdioBridge`), or says how to build it.
 * @param {string} label - who asks ("code-mode-mcp")
 * @returns {Promise<any>}
 */
export async function loadStdioBridge(label) {
  checkBuilt(label);
  return import(STDIO_BRIDGE_MODULE);
}

/**
 * Exits with the fix when the prebuilt Worker, runner or product module is missing.
 * @param {string} label - who asks ("npm start", "code-mode-mcp")
 */
export function checkBuilt(label) {
  if (
    ![PRODUCT_MODULE, STDIO_BRIDGE_MODULE, WORKER_CONFIG, RUNNER_SCRIPT].every((file) =>
      existsSync(file),
    )
  ) {
    console.error(
      `${label}: the prebuilt Worker is missing (${WORKER_CONFIG}).\n  Fix: in a clone, run npm run build:worker (npm start does it itself); a published package ships it.`,
    );
    process.exit(1);
  }
}
