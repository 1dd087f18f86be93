// The public surface of each package entry, pinned: adding, renaming or dropping an export (also
// one that arrives through `export *`) must be a deliberate change to these snapshots (and to the
// docs). Names are read from the TypeScript program, as a user's compiler sees them.
import ts from "typescript";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The package's entries (package.json `exports`) and the source each one is built from. */
const ENTRIES = {
  "code-mode-mcp": "src/index.ts",
  "code-mode-mcp/codemode": "src/codemode/index.ts",
  "code-mode-mcp/mcp": "src/mcp/index.ts",
  "code-mode-mcp/mcp/server": "src/mcp/server.ts",
} as const;

const root = fileURLToPath(new URL("../../", import.meta.url));
const files = Object.values(ENTRIES).map((f) => root + f);
// Binding the entries is enough to list exports; no type check of the whole program is needed.
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: ["@cloudflare/workers-types"],
  noEmit: true,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();

/**
 * Every export of an entry as `name: value` or `name: type` (a class or an enum is a value).
 *
 * @param file - the entry's source file
 * @returns the sorted list
 */
function exportsOf(file: string): string[] {
  const source = program.getSourceFile(root + file);
  if (!source) throw new Error(`public-surface: ${file} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`public-surface: ${file} is not a module`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return `${symbol.name}: ${target.flags & ts.SymbolFlags.Value ? "value" : "type"}`;
    })
    .toSorted();
}

describe("public surface", () => {
  for (const [entry, file] of Object.entries(ENTRIES)) {
    it(`${entry} exports exactly the pinned names`, () => {
      expect(exportsOf(file)).toMatchSnapshot();
    });
  }

  it("the root entry exports everything each subpath entry does", () => {
    const rootNames = new Set(exportsOf(ENTRIES["code-mode-mcp"]));
    for (const [entry, file] of Object.entries(ENTRIES)) {
      const missing = exportsOf(file).filter((name) => !rootNames.has(name));
      expect(missing, `${entry} exports these, code-mode-mcp does not`).toEqual([]);
    }
  });
});
