// Build step: bundles cli/product/index.mjs (and everything it imports: swagger-parser, the MCP SDKs,
// gpt-tokenizer) into one Node ESM file, so the published command has no build-time dependency.
import { build } from "esbuild";
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles the product module to `outfile`.
 * @param {string} outfile - e.g. dist/cli/product.js
 * @returns {Promise<void>}
 */
export async function buildProduct(outfile) {
  // Written beside and renamed into place: a running launcher may import it meanwhile.
  const staged = `${outfile}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(ROOT, "cli/product/index.mjs")],
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
