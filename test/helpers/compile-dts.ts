/**
 * Type-checks declaration files with full checking (the project's `skipLibCheck` would skip
 * `.d.ts` files), for golden tests of generated declarations. Many files go into one program:
 * the lib files are parsed and bound once, not once per case (per-case programs made the
 * exactness suite spend most of its time re-reading lib.es2023).
 */
import ts from "typescript";

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: [],
  lib: ["lib.es2023.d.ts"],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
};

/**
 * Compiles `files` as one program and returns tsc's diagnostics per file (an empty list when a
 * file compiles). A diagnostic that belongs to no file (options, globals) is listed under every
 * file, so no case can pass while the program as a whole fails.
 * @param files - absolute paths of modules or `.d.ts` files; each should be a module, so the
 *   files of one batch cannot see each other's declarations
 */
export function dtsDiagnosticsByFile(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([...files], OPTIONS);
  const byFile = new Map<string, string[]>(files.map((file) => [file, []]));
  const global: string[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = `${ts.flattenDiagnosticMessageText(d.messageText, "\n")} (${d.file?.fileName.split("/").pop()})`;
    const list = d.file === undefined ? undefined : byFile.get(d.file.fileName);
    (list ?? global).push(text);
  }
  for (const list of byFile.values()) list.push(...global);
  return byFile;
}

/**
 * Returns tsc's diagnostics for `files` (empty when they compile), each naming its file.
 * @param files - absolute paths of `.d.ts` files
 */
export function dtsDiagnostics(files: readonly string[]): string[] {
  return [...new Set([...dtsDiagnosticsByFile(files).values()].flat())];
}
