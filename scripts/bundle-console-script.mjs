// The status page's run console script (browser/console.ts) bundled for the browser: one
// classic script (an IIFE, inlined in a <script> element), ES2023 (Array#toSorted), unminified so the page's source
// stays readable. Used by the build step (build-sandbox.mjs) and by the golden test that pins the
// text (test/unit/app/console-script.test.ts), so both see the same bytes.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles browser/console.ts.
 * @returns {Promise<string>} the script's text
 */
export async function bundleConsoleScript() {
  const result = await build({
    entryPoints: [join(ROOT, "browser/console.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    legalComments: "none",
    charset: "utf8",
  });
  const file = result.outputFiles?.[0];
  if (!file) throw new Error("bundle-console-script: esbuild produced no output");
  // Inlined in a <script> element: its text must never close that element.
  if (/<\/script/i.test(file.text))
    throw new Error(
      "bundle-console-script: the script contains </script, which would end the element",
    );
  return file.text;
}
