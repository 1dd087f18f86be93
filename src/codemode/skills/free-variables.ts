/**
 * The free variables of a parsed function: names it reads or writes that nothing inside it
 * declares. A saved skill must be self-contained (it runs later, in another program, where what
 * the saving program closed over does not exist), so the host refuses a skill whose free
 * variables are not the sandbox's own globals (skill-draft.ts names the first one).
 *
 * Scoping follows strict-mode modules (the sandbox runs one): `var` and parameters belong to the
 * nearest function; `let`, `const`, `class` and function declarations to the nearest block (or
 * `for` head, `switch`, `catch`); a named function or class expression sees its own name; a
 * non-arrow function has `arguments`. Property names, labels and `import.meta` are no variables.
 */
import type { Node, Program } from "acorn";
import { forEachChild } from "../../executor/node-children";

type AnyNode = Node & Record<string, unknown>;

/** One scope: the names declared in it, and the scope around it. */
interface Scope {
  names: Set<string>;
  parent: Scope | undefined;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * Names used in `program` that no scope inside it declares, in order of first use.
 * @param program - the parsed code (a function expression, see prelude-function.ts)
 * @returns the free names, each once
 */
export function freeVariables(program: Program): string[] {
  const free = new Set<string>();
  const root: Scope = { names: new Set(), parent: undefined };
  const use = (name: string, scope: Scope) => {
    for (let s: Scope | undefined = scope; s; s = s.parent) if (s.names.has(name)) return;
    free.add(name);
  };
  // The body of a block-like node: its lexical declarations are its own.
  const block = (statements: AnyNode[], parent: Scope, extra: Iterable<string> = []) => {
    const scope: Scope = { names: new Set(extra), parent };
    for (const stmt of statements) lexicalNames(stmt, scope.names);
    for (const stmt of statements) visit(stmt, scope);
  };
  const fn = (node: AnyNode, parent: Scope) => {
    const names = new Set<string>();
    // A function expression's (or class expression's) own name is visible inside it only.
    const id = node["id"] as AnyNode | null;
    if (id && node.type === "FunctionExpression") names.add(String(id["name"]));
    if (node.type !== "ArrowFunctionExpression") names.add("arguments");
    const params = node["params"] as AnyNode[];
    for (const p of params) patternNames(p, names);
    const body = node["body"] as AnyNode;
    if (body.type === "BlockStatement") varNames(body, names);
    const scope: Scope = { names, parent };
    // Defaults and computed keys in parameters are expressions read in the function's scope.
    for (const p of params) visitPattern(p, scope);
    if (body.type === "BlockStatement") block(body["body"] as AnyNode[], scope);
    else visit(body, scope);
  };
  const visitPattern = (node: AnyNode, scope: Scope): void => {
    switch (node.type) {
      case "Identifier":
        return;
      case "AssignmentPattern":
        visitPattern(node["left"] as AnyNode, scope);
        return visit(node["right"] as AnyNode, scope);
      case "ArrayPattern":
        for (const el of node["elements"] as (AnyNode | null)[]) if (el) visitPattern(el, scope);
        return;
      case "RestElement":
        return visitPattern(node["argument"] as AnyNode, scope);
      case "ObjectPattern":
        for (const prop of node["properties"] as AnyNode[]) {
          if (prop.type === "RestElement") visitPattern(prop, scope);
          else {
            if (prop["computed"]) visit(prop["key"] as AnyNode, scope);
            visitPattern(prop["value"] as AnyNode, scope);
          }
        }
        return;
      default:
        // A member expression as an assignment target (`[a.b] = …`) reads `a`.
        return visit(node, scope);
    }
  };
  const visit = (node: AnyNode, scope: Scope): void => {
    switch (node.type) {
      case "Identifier":
        return use(String(node["name"]), scope);
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
        return fn(node, scope);
      case "ClassDeclaration":
      case "ClassExpression": {
        const id = node["id"] as AnyNode | null;
        const inner: Scope = {
          names: new Set(id && node.type === "ClassExpression" ? [String(id["name"])] : []),
          parent: scope,
        };
        if (node["superClass"]) visit(node["superClass"] as AnyNode, inner);
        return visit(node["body"] as AnyNode, inner);
      }
      case "BlockStatement":
      case "StaticBlock":
        return block(node["body"] as AnyNode[], scope);
      case "SwitchStatement": {
        visit(node["discriminant"] as AnyNode, scope);
        const cases = node["cases"] as AnyNode[];
        const statements = cases.flatMap((c) => c["consequent"] as AnyNode[]);
        const inner: Scope = { names: new Set(), parent: scope };
        for (const stmt of statements) lexicalNames(stmt, inner.names);
        for (const c of cases) {
          if (c["test"]) visit(c["test"] as AnyNode, inner);
          for (const stmt of c["consequent"] as AnyNode[]) visit(stmt, inner);
        }
        return;
      }
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement": {
        const inner: Scope = { names: new Set(), parent: scope };
        const head = (node["init"] ?? node["left"]) as AnyNode | null;
        if (head?.type === "VariableDeclaration" && head["kind"] !== "var")
          for (const d of head["declarations"] as AnyNode[])
            patternNames(d["id"] as AnyNode, inner.names);
        for (const key of ["init", "left", "test", "update", "right", "body"])
          if (node[key]) visitChild(node[key] as AnyNode, inner, key === "left");
        return;
      }
      case "CatchClause": {
        const inner: Scope = { names: new Set(), parent: scope };
        const param = node["param"] as AnyNode | null;
        if (param) {
          patternNames(param, inner.names);
          visitPattern(param, inner);
        }
        return visit(node["body"] as AnyNode, inner);
      }
      case "VariableDeclarator":
        visitPattern(node["id"] as AnyNode, scope);
        if (node["init"]) visit(node["init"] as AnyNode, scope);
        return;
      case "AssignmentExpression":
        visitChild(node["left"] as AnyNode, scope, true);
        return visit(node["right"] as AnyNode, scope);
      case "MemberExpression":
        visit(node["object"] as AnyNode, scope);
        if (node["computed"]) visit(node["property"] as AnyNode, scope);
        return;
      case "Property":
      case "PropertyDefinition":
      case "MethodDefinition":
        if (node["computed"]) visit(node["key"] as AnyNode, scope);
        if (node["value"]) visit(node["value"] as AnyNode, scope);
        return;
      case "LabeledStatement":
        return visit(node["body"] as AnyNode, scope);
      case "BreakStatement":
      case "ContinueStatement":
      case "MetaProperty":
      case "PrivateIdentifier":
        return;
      default:
        forEachChild(node, (child) => visit(child, scope));
    }
  };
  // An assignment target or a `for (x of …)` head: a pattern whose identifiers are uses.
  const visitChild = (node: AnyNode, scope: Scope, target: boolean) => {
    if (!target) return visit(node, scope);
    if (node.type === "VariableDeclaration") return visit(node, scope);
    for (const name of patternIdentifiers(node)) use(name, scope);
    visitPattern(node, scope);
  };
  for (const stmt of program.body as AnyNode[]) visit(stmt, root);
  return [...free];
}

/** Names a binding pattern declares (`a`, `{ b, c: [d] }`, `...e`, `f = 1`). */
function patternNames(node: AnyNode, into: Set<string>): void {
  for (const name of patternIdentifiers(node)) into.add(name);
}

function patternIdentifiers(node: AnyNode): string[] {
  switch (node.type) {
    case "Identifier":
      return [String(node["name"])];
    case "AssignmentPattern":
      return patternIdentifiers(node["left"] as AnyNode);
    case "RestElement":
      return patternIdentifiers(node["argument"] as AnyNode);
    case "ArrayPattern":
      return (node["elements"] as (AnyNode | null)[]).flatMap((el) =>
        el ? patternIdentifiers(el) : [],
      );
    case "ObjectPattern":
      return (node["properties"] as AnyNode[]).flatMap((prop) =>
        patternIdentifiers((prop.type === "RestElement" ? prop : prop["value"]) as AnyNode),
      );
    default:
      return [];
  }
}

/** `let`, `const`, `class` and function declarations made directly by `stmt`. */
function lexicalNames(stmt: AnyNode, into: Set<string>): void {
  if (stmt.type === "VariableDeclaration" && stmt["kind"] !== "var")
    for (const d of stmt["declarations"] as AnyNode[]) patternNames(d["id"] as AnyNode, into);
  if (
    (stmt.type === "ClassDeclaration" || stmt.type === "FunctionDeclaration") &&
    stmt["id"] !== null
  )
    into.add(String((stmt["id"] as AnyNode)["name"]));
}

/** Every `var` declared in `node`, not looking into nested functions. */
function varNames(node: AnyNode, into: Set<string>): void {
  if (node.type === "VariableDeclaration" && node["kind"] === "var")
    for (const d of node["declarations"] as AnyNode[]) patternNames(d["id"] as AnyNode, into);
  if (FUNCTIONS.has(node.type) || node.type === "ClassDeclaration") return;
  forEachChild(node, (child) => varNames(child, into));
}
