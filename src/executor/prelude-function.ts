/**
 * A function the host places before the program in its module (a saved skill, see
 * `ExecuteRequest.prelude`): its source parsed as exactly one function expression and
 * instrumented with the same operation-budget ticks as the program, so a skill's loop costs what
 * the program's own loop costs.
 *
 * The source is untrusted text (a program chose it), so the check is structural: the text
 * wrapped in parentheses must parse as one expression statement that is a function. A source
 * such as `x) ; other(); (y` parses as three statements and is refused, so no source can close
 * the prelude's own syntax around it.
 */
import { parse, type Program } from "acorn";
import { instrument } from "./instrument";
import { applyInsertions } from "./position-map";
import { braceDepthGuard, NestingError } from "./prepare-code";

/** A function source ready for the prelude, or why it is not one. */
export type PreludeFunction =
  | {
      ok: true;
      /** An expression (in parentheses) evaluating to the function, budget ticks inserted. */
      text: string;
      /** The parsed wrapper, for callers that analyse it further (free variables). */
      program: Program;
    }
  | { ok: false; message: string };

const FUNCTION_TYPES = new Set(["ArrowFunctionExpression", "FunctionExpression"]);

/**
 * Parses `source` as one function expression and instruments it.
 *
 * Accepted: an arrow function or a function expression (`async (input) => …`,
 * `async function (input) { … }`), or a method as `Function.prototype.toString` prints one
 * (`async run(input) { … }`), which is turned into a function expression.
 * @param source - the function's text
 * @returns the instrumented expression text, or a message naming the problem
 */
export function preludeFunction(source: string): PreludeFunction {
  // A method's text (`run(input) { … }`) is no expression; as a function expression's body it is.
  const asFunction = parseFunction(source);
  const parsed = asFunction.ok ? asFunction : parseMethod(source);
  if (!parsed.ok) return asFunction.ok ? parsed : asFunction;
  const { program, wrapped } = parsed;
  const planned = instrument(program, wrapped.length, { bare: true });
  if (!planned.ok) return { ok: false, message: planned.problem.message };
  return { ok: true, text: applyInsertions(wrapped, planned.insertions), program };
}

type Parsed = { ok: true; program: Program; wrapped: string } | PreludeProblem;
type PreludeProblem = { ok: false; message: string };

function parseFunction(source: string): Parsed {
  // Newlines: a source ending in a line comment cannot swallow the closing parenthesis.
  const wrapped = `(\n${source}\n)`;
  const program = tryParse(wrapped);
  if (typeof program === "string") return { ok: false, message: program };
  const only = program.body.length === 1 ? program.body[0] : undefined;
  const expr = only?.type === "ExpressionStatement" ? only.expression : undefined;
  // One statement that is a function: the wrapper's parentheses hold all of the text, so no
  // source can close them early and add statements of its own.
  if (!expr || !FUNCTION_TYPES.has(expr.type))
    return {
      ok: false,
      message: "The code is not one function: give a function such as `async (input) => { … }`.",
    };
  return { ok: true, program, wrapped };
}

function parseMethod(source: string): Parsed {
  const match = /^(async\s+)?(\*\s*)?([A-Za-z_$][\w$]*)\s*\(/.exec(source);
  if (!match || match[3] === "function")
    return { ok: false, message: "The code is not one function." };
  const [, isAsync = "", star = ""] = match;
  const head = `${isAsync}function${star ? "*" : ""} `;
  // `async run(input) {…}` → `async function run(input) {…}`: only the head changes.
  const rest = source.slice(isAsync.length + star.length);
  const rebuilt = parseFunction(`${head}${rest}`);
  if (!rebuilt.ok) return rebuilt;
  return rebuilt;
}

function tryParse(text: string): Program | string {
  try {
    // Nesting bounded as a program's is (prepare-code.ts): the host parses an imported skill's
    // code, and reads its names again in every open scope (free-variables.ts).
    return parse(text, { ecmaVersion: "latest", sourceType: "module", onToken: braceDepthGuard() });
  } catch (error) {
    if (error instanceof NestingError) return error.message;
    return `The code does not parse: ${String((error as Error).message)}.`;
  }
}
