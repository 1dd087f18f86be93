// The export names of module files as TypeScript sees them (`export *` followed, type vs value
// marked). Shared by the public-surface unit test (sources) and the fresh-project test (the
// installed package's .d.ts, resolved through its `exports` map).
import ts from "typescript";

/** Compiler options of a Worker project; binding the files is enough to list their exports. */
const OPTIONS = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: ["@cloudflare/workers-types"],
  noEmit: true,
  skipLibCheck: true,
};

/**
 * Every export of each file, as sorted `name: value` / `name: type` lines (a class is a value).
 * @param {string[]} files - absolute paths of .ts or .d.ts files
 * @returns {string[][]} one list per file, in the same order
 */
export function exportNames(files) {
  const program = ts.createProgram(files, OPTIONS);
  const checker = program.getTypeChecker();
  return files.map((file) => {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`export-names: ${file} is not a module of the program`);
    return checker
      .getExportsOfModule(module)
      .map((symbol) => {
        const target =
          symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return `${symbol.name}: ${target.flags & ts.SymbolFlags.Value ? "value" : "type"}`;
      })
      .toSorted();
  });
}

/**
 * The file TypeScript picks for `specifier` imported from `directory` (a bundler project):
 * for a package, through its `exports` map's `types` condition.
 * @param {string} specifier
 * @param {string} directory
 * @returns {string}
 */
export function resolveTypes(specifier, directory) {
  const { resolvedModule } = ts.resolveModuleName(
    specifier,
    `${directory}/index.ts`,
    OPTIONS,
    ts.sys,
  );
  if (!resolvedModule)
    throw new Error(`export-names: ${specifier} does not resolve from ${directory}`);
  return resolvedModule.resolvedFileName;
}
