/**
 * Compiles the whole declarations corpus as one TypeScript program (in memory, one module per
 * schema) and reports, per schema, whether its declarations compile and which probe lines
 * compile. A probe is one line of TypeScript: an instance check ({@link instanceProbe}: a fresh
 * literal, as the model writes arguments, so excess-property and literal checks apply) or a
 * type equality check ({@link equalProbe}).
 */
import ts from "typescript";

/** One schema's declarations and the probe lines to try. */
export interface TypecheckEntry {
  /** The declarations text (types and `declare const codemode`), plus any helper types. */
  declarations: string;
  /** Lines of TypeScript, each on its own line, each judged by whether it compiles. */
  probes: string[];
}

/** What tsc said about one entry. */
export interface TypecheckResult {
  /** Diagnostics outside the probe lines: the declarations do not compile. */
  declarationErrors: string[];
  /** Per probe, whether it compiles. */
  passed: boolean[];
}

/** Mutual assignability: the two types admit the same values. */
const SAME = "type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;";

/**
 * A probe that compiles when type `name` accepts `value` written as a literal.
 * @param name - the type
 * @param value - a JSON value
 * @param index - a number unique in the entry
 */
export function instanceProbe(name: string, value: unknown, index: number): string {
  return `const v${index}: ${name} = ${JSON.stringify(value)};`;
}

/**
 * A probe that compiles when two types admit the same values (each assignable to the other).
 * @param a - a type expression
 * @param b - a type expression
 * @param index - a number unique in the entry
 */
export function equalProbe(a: string, b: string, index: number): string {
  return `const same${index}: Same<${a}, ${b}> = true;`;
}

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ["lib.es2023.d.ts"],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  noUnusedLocals: false,
};

/**
 * Type-checks every entry in one program.
 * @param entries - schemas with their declarations and instances
 */
export function typecheckCorpus(entries: readonly TypecheckEntry[]): TypecheckResult[] {
  const files = new Map<string, { text: string; firstInstanceLine: number }>();
  entries.forEach((entry, i) => {
    const head = `${entry.declarations}\n${SAME}\nexport {};\n`;
    const firstInstanceLine = head.split("\n").length - 1;
    files.set(`/corpus/c${i}.ts`, {
      text: head + entry.probes.join("\n") + "\n",
      firstInstanceLine,
    });
  });
  const host = ts.createCompilerHost(OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const file = files.get(name);
    return file
      ? ts.createSourceFile(name, file.text, version)
      : getSourceFile(name, version, onError, create);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  const results: TypecheckResult[] = entries.map((e) => ({
    declarationErrors: [],
    passed: e.probes.map(() => true),
  }));
  const diagnostics = [
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ];
  for (const d of diagnostics) {
    const name = d.file?.fileName ?? "";
    const index = Number(/\/corpus\/c(\d+)\.ts$/.exec(name)?.[1] ?? -1);
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const result = results[index];
    if (!result || !d.file || d.start === undefined) {
      // A diagnostic outside the corpus (a lib problem) fails every entry.
      for (const r of results) r.declarationErrors.push(message);
      continue;
    }
    const line = d.file.getLineAndCharacterOfPosition(d.start).line;
    const instance = line - files.get(name)!.firstInstanceLine;
    if (instance >= 0 && instance < result.passed.length) result.passed[instance] = false;
    else result.declarationErrors.push(`line ${line + 1}: ${message}`);
  }
  return results;
}
