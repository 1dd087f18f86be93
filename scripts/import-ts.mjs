// Imports one of the product's TypeScript modules from a Node build script. The build step must
// run the very code the Worker runs (compileSpec, the declaration naming policy), not a copy, and
// Node 22 cannot import extensionless .ts specifiers: esbuild bundles the entry in memory.
import { build } from "esbuild";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles a TypeScript entry (path relative to the repository root) and imports it.
 * @param {string} entry - e.g. "src/openapi/compile-spec.ts"
 * @param {{ platform?: "neutral" | "node" }} [options] - "node" for an entry that uses packages
 *   (the MCP SDKs, gpt-tokenizer): they stay outside the bundle and load from node_modules as
 *   Node loads them (bundled into a data URL, the tokenizer's ranks took seconds more to import);
 *   default "neutral", everything bundled
 * @returns {Promise<any>} the module namespace
 */
export async function importTs(entry, { platform = "neutral" } = {}) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: "esm",
    platform,
    ...(platform === "node" ? { packages: /** @type {const} */ ("external") } : {}),
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`import-ts: esbuild produced no output for ${entry}`);
  if (platform !== "node")
    return import(`data:text/javascript;base64,${Buffer.from(file.text).toString("base64")}`);
  // A file inside the repository, so its package imports resolve from node_modules; one per
  // process and call (concurrent builds), removed once imported.
  const dir = join(ROOT, "node_modules/.cache/import-ts");
  await mkdir(dir, { recursive: true });
  const out = join(dir, `${basename(entry)}.${process.pid}.${crypto.randomUUID()}.mjs`);
  await writeFile(out, file.text);
  try {
    return await import(pathToFileURL(out).href);
  } finally {
    await rm(out, { force: true });
  }
}
