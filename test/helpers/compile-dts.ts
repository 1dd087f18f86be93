/**
 * Type-checks declaration files with full checking (the project's `skipLibCheck` would skip
 * `.d.ts` files), for golden tests of generated declarations.
 */
import ts from "typescript";

/**
 * Returns tsc's diagnostics for `files` (empty when they compile), each naming its file.
 * @param files - absolute paths of `.d.ts` files
 */
export function dtsDiagnostics(files: readonly string[]): string[] {
  const program = ts.createProgram([...files], {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
    lib: ["lib.es2023.d.ts"],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${ts.flattenDiagnosticMessageText(d.messageText, "\n")} (${d.file?.fileName.split("/").pop()})`,
    );
}
