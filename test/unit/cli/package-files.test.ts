/**
 * The published package holds every file its launcher loads. package.json's `files` names folders
 * one by one (the repository's cli/ also holds the product's sources, bundled into dist/), so a
 * module moved into a new folder under cli/ is missing from `npx code-mode-mcp` until `files`
 * names it: the launcher then fails on its first import on a user's machine, while every test
 * that runs from the repository passes (session 28: cli/stdio/ was left out). e2e `npx-bin` packs
 * and runs the package too, but in minutes and at the end of CI; this walks the import graph of
 * bin/ against `npm pack --dry-run`'s list in a second.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** The repository paths `npm pack` would publish. */
function packedFiles(): Set<string> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set((pack?.files ?? []).map((f) => f.path));
}

/** Relative module specifiers of a JavaScript file (static and dynamic imports, re-exports). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g,
  ))
    found.push(match[1] as string);
  return found;
}

/** Every repository file reached from `entries` through relative imports (dist/ included). */
function importGraph(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.m?js$/.test(file) || !existsSync(join(root, file))) continue;
    for (const specifier of relativeImports(readFileSync(join(root, file), "utf8")))
      queue.push(relative(root, normalize(join(root, dirname(file), specifier))));
  }
  return seen;
}

describe("the published package", () => {
  it("holds every module the launcher imports", () => {
    const packed = packedFiles();
    const reached = importGraph(["bin/code-mode-mcp.mjs"]);
    // Sanity: the graph reaches past bin/ (the walk reads imports) and the list is npm's.
    expect(reached.size).toBeGreaterThan(20);
    expect(packed.has("bin/code-mode-mcp.mjs")).toBe(true);
    // A specifier that names no file here is text the launcher writes (deploy-skills.mjs's entry).
    const missing = [...reached]
      .filter((file) => existsSync(join(root, file)) && !packed.has(file))
      .toSorted();
    expect(missing, "add their folder to package.json's `files`").toEqual([]);
  }, 90_000);

  it("the walk follows the launcher into cli/'s folders", () => {
    const reached = importGraph(["bin/code-mode-mcp.mjs"]);
    expect(reached.has("cli/stdio/early-launch.mjs")).toBe(true);
    expect(reached.has("cli/local-server/supervise.mjs")).toBe(true);
  });
});
