// Where the launchers find their parts, in a clone and in an installed package alike: the
// prebuilt Worker and product module under dist/ (npm run build:worker), and wrangler wherever
// npm put it.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (the repository root in a clone). */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler config of the prebuilt product Worker. */
export const WORKER_CONFIG = join(PACKAGE_ROOT, "dist/worker/wrangler.json");
/** The bundled sandbox runner Worker (src/runner.ts). */
export const RUNNER_SCRIPT = join(PACKAGE_ROOT, "dist/worker/runner.js");
/** The bundled product module (cli/product/). */
export const PRODUCT_MODULE = join(PACKAGE_ROOT, "dist/cli/product.js");

/** Path of wrangler's bin/wrangler.js, resolved as Node resolves the dependency. */
export function wranglerBin() {
  const pkg = createRequire(import.meta.url).resolve("wrangler/package.json");
  return join(dirname(pkg), "bin/wrangler.js");
}

/**
 * Imports the prebuilt product module, or says how to build it.
 * @param {string} label - who asks ("npm start", "code-mode-mcp")
 * @returns {Promise<any>}
 */
export async function loadProduct(label) {
  if (!existsSync(PRODUCT_MODULE) || !existsSync(WORKER_CONFIG) || !existsSync(RUNNER_SCRIPT)) {
    console.error(
      `${label}: the prebuilt Worker is missing (${WORKER_CONFIG}).\n  Fix: in a clone, run npm run build:worker (npm start does it itself); a published package ships it.`,
    );
    process.exit(1);
  }
  return import(PRODUCT_MODULE);
}
