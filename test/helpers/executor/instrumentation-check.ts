/**
 * Independent check of the instrumenter's output: every loop body, function body and catch /
 * finally block of a generated module must start with the budget tick. Runaway probes run only
 * when this check passes for their code, so a broken instrumenter fails a test instead of
 * hanging workerd.
 */
import { parse } from "acorn";
import { prepareCode } from "../../../src/executor/prepare-code";

type Node = { type: string; start: number; end: number; [key: string]: unknown };

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * Returns a description of every site in `moduleText` that lacks a leading tick (empty = safe).
 * @param moduleText - the generated user module
 * @param tick - the tick function's name
 */
export function uninstrumentedSites(moduleText: string, tick = "__cm$t"): string[] {
  const program = parse(moduleText, {
    ecmaVersion: "latest",
    sourceType: "module",
    allowAwaitOutsideFunction: true,
  }) as unknown as Node;
  const missing: string[] = [];
  const isTickCall = (node: Node | undefined): boolean => {
    const expr = node?.type === "ExpressionStatement" ? (node["expression"] as Node) : node;
    return (
      expr?.type === "CallExpression" &&
      (expr["callee"] as Node).type === "Identifier" &&
      (expr["callee"] as { name: string }).name === tick
    );
  };
  const startsWithTick = (body: Node): boolean => {
    if (body.type === "BlockStatement") return isTickCall((body["body"] as Node[])[0]);
    if (body.type === "SequenceExpression") return isTickCall((body["expressions"] as Node[])[0]);
    return false;
  };
  const visit = (node: Node): void => {
    if (LOOPS.has(node.type) || FUNCTIONS.has(node.type) || node.type === "CatchClause") {
      if (!startsWithTick(node["body"] as Node)) missing.push(`${node.type} at ${node.start}`);
    }
    if (
      node.type === "TryStatement" &&
      node["finalizer"] &&
      !startsWithTick(node["finalizer"] as Node)
    )
      missing.push(`finally at ${node.start}`);
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach((v) => isNode(v) && visit(v));
      else if (isNode(value)) visit(value);
    }
  };
  visit(program);
  return missing;
}

function isNode(value: unknown): value is Node {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

/**
 * Refuses to go on unless every loop, function and catch of `code` is instrumented (a probe that
 * could spin forever runs only behind this guard); returns `code` unchanged.
 * @param code - the probe's program
 */
export function guardProbe(code: string): string {
  const prepared = prepareCode(code);
  if (!prepared.ok) throw new Error(`probe does not parse: ${prepared.message}`);
  const missing = uninstrumentedSites(prepared.module);
  if (missing.length > 0)
    throw new Error(
      `refusing to run a probe that could hang workerd; uninstrumented: ${missing.join(", ")}`,
    );
  return code;
}
