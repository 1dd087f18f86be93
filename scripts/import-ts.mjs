// Imports one of the product's TypeScript modules from a Node build script. The build step must
// run the very code the Worker runs (compileSpec, the declaration naming policy), not a copy, and
// Node 22 cannot import extensionless .ts specifiers: esbuild bundles the entry in memory.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles a TypeScript entry (path relative to the repository root) and imports it.
 * @param {string} entry - e.g. "src/openapi/compile-spec.ts"
 * @param {{ platform?: "neutral" | "node" }} [options] - "node" for an entry whose packages
 *   resolve through Node's conditions (the MCP SDKs, gpt-tokenizer); default "neutral"
 * @returns {Promise<any>} the module namespace
 */
export async function importTs(entry, { platform = "neutral" } = {}) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: "esm",
    platform,
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`import-ts: esbuild produced no output for ${entry}`);
  return import(`data:text/javascript;base64,${Buffer.from(file.text).toString("base64")}`);
}
