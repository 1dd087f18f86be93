// The one walker step both AST walkers share (src/executor/node-children.ts): which values of a
// node are its children.
import { parse, type Node } from "acorn";
import { describe, expect, it } from "vitest";
import { forEachChild } from "../../../src/executor/node-children";

type AnyNode = Node & Record<string, unknown>;

/** The types of `node`'s direct children, in the order `forEachChild` gives them. */
function childTypes(node: AnyNode): string[] {
  const types: string[] = [];
  forEachChild(node, (child) => types.push(child.type));
  return types;
}

/** The first statement of `code`, parsed as a module. */
function first(code: string, options: { locations?: boolean; ranges?: boolean } = {}): AnyNode {
  const program = parse(code, { ecmaVersion: "latest", sourceType: "module", ...options });
  return program.body[0] as AnyNode;
}

describe("forEachChild", () => {
  it("gives the nodes under a node's keys and in its arrays, in key order", () => {
    expect(childTypes(first("if (a) b(); else c;"))).toEqual([
      "Identifier",
      "ExpressionStatement",
      "ExpressionStatement",
    ]);
    const call = (first("f(x, ...y)") as AnyNode)["expression"] as AnyNode;
    expect(childTypes(call)).toEqual(["Identifier", "Identifier", "SpreadElement"]);
  });

  it("passes over holes, literals' values and positions", () => {
    const array = (first("[, 1, /r/g]") as AnyNode)["expression"] as AnyNode;
    expect(childTypes(array)).toEqual(["Literal", "Literal"]);
    // With positions recorded, a node has `loc` and `range` too: they are no children.
    const located = first("a + b", { locations: true, ranges: true });
    expect(located["loc"]).toBeDefined();
    expect(childTypes(located)).toEqual(childTypes(first("a + b")));
    expect(childTypes(located)).toEqual(["BinaryExpression"]);
  });
});
