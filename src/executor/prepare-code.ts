/**
 * Prepares model-written code for the sandbox: extracts a fenced block, parses it (stripping
 * TypeScript types when plain JavaScript does not parse), and instruments it into the `user.js`
 * module. Problems come back as data with a 1-based line and column in the model's own code.
 *
 * TypeScript decision: code that does not parse as JavaScript is retried with its types stripped
 * (sucrase, which keeps line numbers), so annotations the model copies from our declarations
 * just work. Columns of later errors are then those of the stripped line. Code that is neither
 * valid JavaScript nor valid TypeScript reports the JavaScript parse error's position.
 */
import { parse, type Program, type Token } from "acorn";
import { transform } from "sucrase";
import { instrument, type CodeForm } from "./instrument";
import { applyInsertions, positionOf, type Insertion } from "./position-map";
import { PreparedCache } from "./prepared-cache";

/** Code ready to ship to the sandbox. */
export interface PreparedCode {
  ok: true;
  /** Text of the `user.js` module. */
  module: string;
  /** The code the module was made from (fence-blanked, maybe type-stripped). */
  source: string;
  /** Insertions that turned `source` into `module`. */
  insertions: Insertion[];
  form: CodeForm;
  /** Whether TypeScript types were stripped. */
  strippedTypes: boolean;
}

/** Why code could not be prepared. */
export interface PrepareError {
  ok: false;
  name: "SyntaxError";
  message: string;
  line: number;
  column: number;
}

/** The isolate's prepared programs by text (prepared-cache.ts: the result is a pure function). */
const prepared = new PreparedCache<PreparedCode | PrepareError>((value) =>
  value.ok ? value.module.length + value.source.length : value.message.length,
);

/**
 * Normalizes, parses and instruments `code`; the same code and prelude again get the kept
 * (frozen) result without a parse (prepared-cache.ts).
 * @param code - the model's code: a function, a function body, a fenced block or a module
 * @param prelude - trusted module text placed first (see `ExecuteRequest.prelude`); it is one
 *   more insertion at offset 0, so positions in the program map back as before
 */
export function prepareCode(code: string, prelude?: string): PreparedCode | PrepareError {
  return prepared.get(code, prelude, () => frozen(prepareUncached(code, prelude)));
}

/**
 * The preparation and its insertions frozen: the cache hands the same object to every run of
 * the same text, so no run may change what another reads.
 * @param value - a fresh preparation
 */
export function frozen(value: PreparedCode | PrepareError): PreparedCode | PrepareError {
  if (value.ok) {
    for (const insertion of value.insertions) Object.freeze(insertion);
    Object.freeze(value.insertions);
  }
  return Object.freeze(value);
}

/**
 * What `prepareCode` does on a cache miss. Everything it reads is its two arguments: it must
 * stay a pure function of them, or the cache would hand one run another's preparation.
 * @param code - as for `prepareCode`
 * @param prelude - as for `prepareCode`
 */
export function prepareUncached(code: string, prelude?: string): PreparedCode | PrepareError {
  const source = blankOutsideFence(code);
  if (source.trim() === "")
    return {
      ok: false,
      name: "SyntaxError",
      message:
        "The code is empty: write an async arrow function such as `async () => { return 1; }`.",
      line: 1,
      column: 1,
    };
  let program: Program;
  let used = source;
  let strippedTypes = false;
  try {
    program = parseProgram(source);
  } catch (jsError) {
    // Too deep is not a question of types: stripping them would parse it all again.
    if (jsError instanceof NestingError) return nestedTooDeep(source, jsError.at);
    const stripped = stripTypes(source);
    if (stripped === undefined) return syntaxError(jsError);
    try {
      program = parseProgram(stripped);
      used = stripped;
      strippedTypes = true;
    } catch (tsError) {
      if (tsError instanceof NestingError) return nestedTooDeep(stripped, tsError.at);
      return syntaxError(jsError);
    }
  }
  const planned = instrument(program, used.length);
  if (!planned.ok) {
    const pos = positionOf(used, planned.problem.at);
    return { ok: false, name: "SyntaxError", message: planned.problem.message, ...pos };
  }
  // First of everything at offset 0: before the body form's `export default … {`, so the
  // prelude's bindings are module-level in every form.
  const insertions = prelude
    ? [{ at: 0, text: `${prelude}\n` }, ...planned.insertions]
    : planned.insertions;
  return {
    ok: true,
    module: applyInsertions(used, insertions),
    source: used,
    insertions,
    form: planned.form,
    strippedTypes,
  };
}

function parseProgram(source: string): Program {
  return parse(source, {
    ecmaVersion: "latest",
    sourceType: "module",
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    locations: false,
    onToken: braceDepthGuard(),
  });
}

/**
 * How deep a program (or a saved skill's function) may nest braces: blocks, object literals and
 * template expressions together. acorn walks the open block scopes for each name it reads (to
 * know whether it is inside an async function or a generator), so its parse takes time in the
 * nesting depth times the length: 65,536 characters nested 2,000 blocks deep took 380 ms of the
 * host's thread to parse (13 ms unnested), and twelve such programs at once held every other
 * client's requests 4–6 s. Real programs nest a few dozen levels at most.
 */
export const MAX_BRACE_DEPTH = 100;

/**
 * Thrown from acorn's `onToken` to end the parse at the first brace past the limit; caught
 * around the parse (never a program's to catch: it becomes the program's SyntaxError answer).
 */
export class NestingError extends Error {
  /**
   * @param at - the offset of the brace past the limit
   */
  constructor(readonly at: number) {
    super(nestingMessage());
  }
}

/**
 * An acorn `onToken` that counts open braces and throws {@link NestingError} at the first one past
 * {@link MAX_BRACE_DEPTH}: the parse ends there, before the cost of the deep part is paid.
 * @returns the callback (one per parse)
 */
export function braceDepthGuard(): (token: Token) => void {
  let depth = 0;
  return (token) => {
    const label = token.type.label;
    if (label === "{" || label === "${") {
      depth++;
      if (depth > MAX_BRACE_DEPTH) throw new NestingError(token.start);
    } else if (label === "}") depth--;
  };
}

/** What a program nested past {@link MAX_BRACE_DEPTH} is told. */
export function nestingMessage(): string {
  return `The code nests braces more than ${MAX_BRACE_DEPTH} levels deep (blocks, objects and template expressions together); flatten it: return early, or move inner parts into functions.`;
}

function nestedTooDeep(source: string, at: number): PrepareError {
  return { ok: false, name: "SyntaxError", message: nestingMessage(), ...positionOf(source, at) };
}

function stripTypes(source: string): string | undefined {
  try {
    return transform(source, {
      transforms: ["typescript"],
      disableESTransforms: true,
      keepUnusedImports: true,
    }).code;
  } catch {
    return undefined;
  }
}

function syntaxError(error: unknown): PrepareError {
  const err = error as { message?: string; loc?: { line: number; column: number } };
  const message = String(err.message ?? error).replace(/ \(\d+:\d+\)$/, "");
  const line = err.loc?.line ?? 1;
  const column = (err.loc?.column ?? 0) + 1;
  // The position travels in `line`/`column` (the tool result prints it once, after the
  // message), as it does for runtime errors: in the message too, it was printed twice.
  return { ok: false, name: "SyntaxError", message, line, column };
}

const FENCE = /^([ \t]*)(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^\1?\2[ \t]*$/m;
const CODE_LANGS = new Set(["", "js", "javascript", "ts", "typescript", "jsx", "tsx", "mjs"]);

/**
 * When the code contains a fenced block, blanks everything outside the first JavaScript or
 * TypeScript fence (keeping newlines) so positions still match the model's text.
 */
function blankOutsideFence(code: string): string {
  const match = FENCE.exec(code);
  if (!match || !CODE_LANGS.has((match[3] ?? "").toLowerCase())) return code;
  const contentStart = match.index + match[0].indexOf("\n") + 1;
  const contentEnd = contentStart + (match[4] ?? "").length;
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  return (
    blank(code.slice(0, contentStart)) +
    code.slice(contentStart, contentEnd) +
    blank(code.slice(contentEnd))
  );
}
