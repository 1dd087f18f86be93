// Build step: bundles cli/product/index.mjs (and everything it imports: swagger-parser, the MCP SDKs,
// gpt-tokenizer) into one Node ESM file, so the published command has no build-time dependency.
import { build } from "esbuild";
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles the product module to `outfile`, and the stdio bridge beside it (`stdio-bridge.js`).
 * @param {string} outfile - e.g. dist/cli/product.js
 * @returns {Promise<void>}
 */
export async function buildProduct(outfile) {
  await bundle(join(ROOT, "cli/product/index.mjs"), outfile);
  // The stdio bridge alone (`code-mode-mcp --stdio` loads it in the launcher's main thread): the
  // whole product module there cost a desktop launch ~0.5–1 s of CPU to compile and run
  // (its tokenizer's tables among it) only to reach the bridge (issue #43).
  // The settings' names with it (stdio-entry.mjs): what a kept early answer depends on.
  await bundle(
    join(ROOT, "cli/product/stdio-entry.mjs"),
    join(dirname(outfile), "stdio-bridge.js"),
  );
}

/**
 * Bundles one entry for Node.
 * @param {string} entry
 * @param {string} outfile
 */
async function bundle(entry, outfile) {
  // Written beside and renamed into place: a running launcher may import it meanwhile.
  const staged = `${outfile}.${process.pid}.tmp`;
  await build({
    entryPoints: [entry],
    outfile: staged,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    legalComments: "none",
    logLevel: "warning",
    // swagger-parser and its dependencies are CommonJS that `require` Node built-ins.
    banner: {
      js: 'import { createRequire as __productRequire } from "node:module"; const require = __productRequire(import.meta.url);',
    },
  });
  renameSync(staged, outfile);
}
