/**
 * Turns a parsed program into the sandbox's `user.js` module: picks the entry form, and inserts
 * an operation-budget tick (`__cm$t()`, see sandbox/runtime.ts) at the start of every loop body,
 * function body, catch and finally block. Only insertions are made (see position-map.ts), so
 * error positions map straight back to the model's code, and the first line carries all the
 * prefix text so line numbers do not move at all.
 *
 * Forms accepted:
 * - a function expression (`async () => { … }`, `async function () { … }`): becomes the default export;
 * - a module with `export default …`: used as is (named exports and imports are refused);
 * - a lone function declaration (`async function main() { … }`): exported and called;
 * - anything else is a function body: statements, top-level `await` and `return`; the value of
 *   a final expression statement is returned (as in a REPL).
 */
import type { Program } from "acorn";
import type { Insertion } from "./position-map";
import { forEachChild } from "./node-children";

/** Name of the tick function inside user code; user identifiers with this prefix are refused. */
export const TICK = "__cm$t";
/** Reserved identifier prefix for names the instrumentation introduces. */
export const RESERVED_PREFIX = "__cm$";

/** Charges a caught value's extra cost (see sandbox/runtime.ts); its call is the catch tick's argument. */
const CATCH_CHARGE = `${RESERVED_PREFIX}c`;
const IMPORT_TICK = `import { t as ${TICK}, c as ${CATCH_CHARGE} } from "./runtime.js";`;
const TICK_CALL = `${TICK}();`;
/** The binding a catch clause gets when it has none or destructures. */
const CAUGHT = `${RESERVED_PREFIX}e`;

/** A problem found in the program, at a 0-based offset of the code. */
export interface InstrumentProblem {
  message: string;
  at: number;
}

/** Which of the accepted forms the code was recognized as. */
export type CodeForm = "function" | "module" | "declaration" | "body";

/** The insertions that make the module, or the first problem found. */
export type InstrumentResult =
  | { ok: true; form: CodeForm; insertions: Insertion[] }
  | { ok: false; problem: InstrumentProblem };

interface Pending extends Insertion {
  /** 0 closes before 1 opens at the same offset. */
  kind: 0 | 1;
  depth: number;
}

type AnyNode = { type: string; start: number; end: number; [key: string]: unknown };

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * Plans the insertions for `program` (parsed from code of length `length`).
 * @param program - acorn AST of the (fence-blanked, type-stripped) code
 * @param length - length of that code
 * @param options - `bare`: only the budget ticks, no entry form and no import (for a function
 *   the host places before the program, see prelude-function.ts; the form is then "body")
 */
export function instrument(
  program: Program,
  length: number,
  options: { bare?: boolean } = {},
): InstrumentResult {
  const pending: Pending[] = [];
  const open = (at: number, text: string, depth: number) =>
    pending.push({ at, text, kind: 1, depth });
  const close = (at: number, text: string, depth: number) =>
    pending.push({ at, text, kind: 0, depth });

  const body = program.body as unknown as AnyNode[];
  let form: CodeForm = "body";
  for (const stmt of body) {
    if (stmt.type === "ImportDeclaration") {
      return fail(
        stmt,
        "Import statements are not available in the sandbox: reach the outside world through the provided namespaces (for example codemode.*).",
      );
    }
    if (stmt.type === "ExportNamedDeclaration" || stmt.type === "ExportAllDeclaration") {
      return fail(
        stmt,
        "Only `export default` is supported: export default one async function, or just write statements.",
      );
    }
    if (stmt.type === "ExportDefaultDeclaration") form = "module";
  }
  const only = body.length === 1 ? body[0] : undefined;
  if (form !== "module" && only?.type === "ExpressionStatement") {
    const expr = only["expression"] as AnyNode;
    if (expr.type === "ArrowFunctionExpression" || expr.type === "FunctionExpression")
      form = "function";
  }
  if (form !== "module" && only?.type === "FunctionDeclaration") form = "declaration";

  if (!options.bare) open(0, IMPORT_TICK, -2);
  if (options.bare) form = "body";
  else if (form === "function" || form === "declaration") open(only!.start, "export default ", -1);
  else if (form === "body") {
    open(0, `export default async function ${RESERVED_PREFIX}main() {${TICK_CALL}`, -1);
    const last = body.at(-1);
    if (last?.type === "ExpressionStatement" && typeof last["directive"] !== "string")
      open(last.start, "return ", 0);
    close(length, "\n}", -1);
  }

  let problem: InstrumentProblem | undefined;
  const visit = (node: AnyNode, depth: number): void => {
    if (problem) return;
    if (node.type === "ImportExpression") {
      problem = { message: "Dynamic import() is not available in the sandbox.", at: node.start };
      return;
    }
    if (node.type === "Identifier" && String(node["name"]).startsWith(RESERVED_PREFIX)) {
      problem = {
        message: `Identifiers starting with ${RESERVED_PREFIX} are reserved by the sandbox; rename ${String(node["name"])}.`,
        at: node.start,
      };
      return;
    }
    if (LOOPS.has(node.type)) tickAtStart(node["body"] as AnyNode, depth);
    else if (FUNCTIONS.has(node.type)) {
      const fnBody = node["body"] as AnyNode;
      if (fnBody.type === "BlockStatement") open(fnBody.start + 1, TICK_CALL, depth);
      else {
        open(fnBody.start, `(${TICK}(), `, depth);
        close(fnBody.end, ")", depth);
      }
    } else if (node.type === "CatchClause") catchTick(node, depth);
    else if (node.type === "TryStatement" && node["finalizer"])
      open((node["finalizer"] as AnyNode).start + 1, TICK_CALL, depth);
    forEachChild(node, (child) => visit(child, depth + 1));
  };
  // A catch block's tick charges the caught value first (a caught stack overflow costs more,
  // see sandbox/runtime.ts). A catch without a binding gets one; a destructuring catch binds the
  // value first and destructures it with `let` (only insertions, so positions stay):
  // `catch (P) {B}` becomes `catch (E) {t(c(E)); let P = E; if (1) {B}}`.
  const catchTick = (clause: AnyNode, depth: number) => {
    const param = clause["param"] as AnyNode | null;
    const block = clause["body"] as AnyNode;
    if (param === null) open(block.start, `(${CAUGHT}) `, depth);
    if (param?.type === "Identifier") {
      open(block.start + 1, catchCall(String(param["name"])), depth);
      return;
    }
    if (param !== null) {
      open(param.start, `${CAUGHT}) {${catchCall(CAUGHT)} let `, depth);
      close(param.end, ` = ${CAUGHT}; if (1`, depth);
      close(block.end, "}", depth);
      return;
    }
    open(block.start + 1, catchCall(CAUGHT), depth);
  };
  const tickAtStart = (loopBody: AnyNode, depth: number) => {
    if (loopBody.type === "BlockStatement") open(loopBody.start + 1, TICK_CALL, depth);
    else {
      open(loopBody.start, `{${TICK_CALL}`, depth);
      close(loopBody.end, "}", depth);
    }
  };
  for (const stmt of body) visit(stmt, 1);
  if (problem) return { ok: false, problem };

  pending.sort(
    (a, b) =>
      a.at - b.at || a.kind - b.kind || (a.kind === 0 ? b.depth - a.depth : a.depth - b.depth),
  );
  return { ok: true, form, insertions: pending.map(({ at, text }) => ({ at, text })) };
}

/** The tick at the start of a catch block, charging the caught value first. */
function catchCall(caught: string): string {
  return `${TICK}(${CATCH_CHARGE}(${caught}));`;
}

function fail(node: AnyNode, message: string): InstrumentResult {
  return { ok: false, problem: { message, at: node.start } };
}
