// A clone needs nothing beside it (issue #42): no test, benchmark, script or CI file names a
// path outside the repository, neither through a relative import or `new URL(…, import.meta.url)`
// that climbs out of it nor through a fixed absolute path or the old shared folder beside it. Big
// fixtures come from `npm run fixtures` into test/.fixtures/ instead.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What is searched: the sources of tests, benchmarks, scripts and CI, and the root configs. */
const SEARCHED = ["test", "bench", "scripts", ".ci", "vitest.config.ts", "package.json"];
/** Folders that hold data or output, not sources (test/fixtures/ is vendored data). */
const SKIPPED = new Set([
  "node_modules",
  ".fixtures",
  ".artifacts",
  ".tmp",
  ".wrangler",
  "fixtures",
  "golden",
  "__snapshots__",
]);
/**
 * The old folder beside the repository, spelled in parts so that this file itself (which names it
 * only as what it forbids) does not read as a file that uses it.
 */
const OLD_SHARED = ["..", "shared"].join("/");
const SOURCE = /\.(ts|mts|mjs|js|cjs|json|jsonc|sh)$|^\.ci\/run$/;

/** Source files (relative to the repository) under `entry`, recursively. */
function sources(entry: string): string[] {
  const path = join(ROOT, entry);
  if (!statSync(path).isDirectory()) return SOURCE.test(entry) ? [entry] : [];
  return readdirSync(path).flatMap((name) =>
    SKIPPED.has(name) ? [] : sources(relative(ROOT, join(path, name)).split(sep).join("/")),
  );
}

/** The relative module specifiers and URLs of `text` that resolve against its own folder. */
function relativeReferences(text: string): string[] {
  const patterns = [
    /\bfrom\s+["'](\.{1,2}\/[^"']*)["']/g,
    /\bimport\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g,
    /\brequire(?:\.resolve)?\(\s*["'](\.{1,2}\/[^"']*)["']/g,
    /new URL\(\s*["'`](\.{1,2}\/[^"'`]*)["'`]\s*,\s*import\.meta\.url/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => String(m[1])));
}

/**
 * Every way `text` (the file `file`) names a place outside the repository: a relative reference
 * that resolves outside ROOT, the old shared folder, or a fixed absolute path of this machine.
 */
function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  for (const reference of relativeReferences(text)) {
    const target = resolve(ROOT, dirname(file), reference.replace(/\?.*$/, ""));
    if (relative(ROOT, target).startsWith("..")) found.push(`${file}: ${reference}`);
  }
  for (const m of text.matchAll(/\.\.\/shared\b|["'`\s(](\/(?:work|home|Users|root)\/[^\s"'`)]*)/g))
    found.push(`${file}: ${m[1] ?? m[0]}`);
  return found;
}

describe("a clone that needs nothing beside it", () => {
  // This file names such paths on purpose, as examples.
  const files = SEARCHED.flatMap(sources).filter(
    (file) => file !== "test/unit/self-contained.test.ts",
  );

  it("searches the sources of tests, benchmarks, scripts and CI", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toEqual(
      expect.arrayContaining([
        ".ci/run",
        "vitest.config.ts",
        "scripts/fetch-fixture-specs.mjs",
        "bench/worker/cloudflare-spec.js",
        "test/e2e/spec-file.mjs",
        "test/helpers/specs/fixture-specs.mjs",
      ]),
    );
  });

  it("recognises each kind of reference outside the repository", () => {
    const file = "test/helpers/x.mjs";
    expect(
      outsideReferences(
        file,
        [
          `import a from "../../${OLD_SHARED}/specs/a.json";`,
          `const b = new URL("../../../elsewhere/", import.meta.url);`,
          `const c = await import("../../../c.mjs");`,
          `const d = "/work/elsewhere/specs/d.json";`,
          `import e from "../fixtures/e.json"; const f = new URL("../../src/", import.meta.url);`,
        ].join("\n"),
      ),
    ).toEqual([
      `${file}: ../../${OLD_SHARED}/specs/a.json`,
      `${file}: ../../../c.mjs`,
      `${file}: ../../../elsewhere/`,
      `${file}: ${OLD_SHARED}`,
      `${file}: /work/elsewhere/specs/d.json`,
    ]);
  });

  it("names no path outside the repository", () => {
    const found = files.flatMap((file) =>
      outsideReferences(file, readFileSync(join(ROOT, file), "utf8")),
    );
    expect(found).toEqual([]);
  });
});
