// The code the status page runs in the browser (browser/), bundled per page script: each one
// classic script (an IIFE, inlined in a <script> element), ES2023 (Array#toSorted), unminified
// so the page's source stays readable; modules the scripts share (browser/page-key.ts,
// browser/error-text.ts) are bundled into each. Used by the build step (build-sandbox.mjs) and
// by the golden test that pins the texts (test/unit/browser/browser-scripts.test.ts), so both
// see the same bytes.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The page scripts: the exported constant's name → its entry module. */
export const BROWSER_SCRIPTS = {
  CONSOLE_SCRIPT: "browser/console.ts",
  SEARCH_FORM_SCRIPT: "browser/search-form.ts",
};

/**
 * Bundles one page script.
 * @param {string} entry - its module, relative to the repository root
 * @returns {Promise<string>} the script's text
 */
export async function bundleBrowserScript(entry) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    legalComments: "none",
    charset: "utf8",
  });
  const file = result.outputFiles?.[0];
  if (!file) throw new Error(`bundle-browser-scripts: esbuild produced no output for ${entry}`);
  // Inlined in a <script> element: its text must never close that element.
  if (/<\/script/i.test(file.text))
    throw new Error(
      `bundle-browser-scripts: ${entry} contains </script, which would end the element`,
    );
  return file.text;
}

/**
 * Bundles every page script.
 * @returns {Promise<Record<keyof typeof BROWSER_SCRIPTS, string>>} the texts by constant name
 */
export async function bundleBrowserScripts() {
  const names = /** @type {(keyof typeof BROWSER_SCRIPTS)[]} */ (Object.keys(BROWSER_SCRIPTS));
  const texts = await Promise.all(names.map((name) => bundleBrowserScript(BROWSER_SCRIPTS[name])));
  return /** @type {Record<keyof typeof BROWSER_SCRIPTS, string>} */ (
    Object.fromEntries(names.map((name, i) => [name, texts[i]]))
  );
}
