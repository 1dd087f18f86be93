// toolDeclarations' `maxChars` (src/declarations/tool-declarations.ts): tools are declared in
// order until the next would pass the bound; that one and every later one are left out, named
// in `omitted`, and never rendered (the work is bounded with the text).
import { describe, expect, it } from "vitest";
import { toolDeclarations, type ToolLike } from "../../../src/declarations/tool-declarations";

/** An object schema nested `depth` levels deep through property `a`. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

/** `count` tools named t0, t1, …; `reads` counts how often any tool's input schema is read. */
function countedTools(count: number, depth: number) {
  const counter = { reads: 0 };
  const tools: ToolLike[] = [];
  for (let i = 0; i < count; i++) {
    const schema = nested(depth);
    tools.push({
      name: `t${i}`,
      description: `Tool ${i}.`,
      get inputSchema() {
        counter.reads++;
        return schema;
      },
    });
  }
  return { tools, counter };
}

describe("toolDeclarations maxChars", () => {
  it("declares everything, as without it, when all fit", () => {
    const { tools } = countedTools(5, 3);
    const bounded = toolDeclarations(tools, { namespace: "skills", maxChars: 1_000_000 });
    expect(bounded.text).toBe(toolDeclarations(tools, { namespace: "skills" }).text);
    expect(bounded.omitted).toEqual([]);
  });

  it("stops before the first tool that would pass it, and reads no later tool", () => {
    const { tools: one } = countedTools(1, 40);
    const each = toolDeclarations(one, { namespace: "skills" }).text.length;
    const { tools, counter } = countedTools(100, 40);
    // Room for three and a half: three are declared.
    const bounded = toolDeclarations(tools, { namespace: "skills", maxChars: each * 3.5 });
    expect(bounded.text.length).toBeLessThanOrEqual(each * 3.5);
    expect(bounded.tools.map((t) => t.name)).toEqual(["t0", "t1", "t2"]);
    expect(bounded.omitted).toEqual(tools.slice(3).map((t) => t.name));
    expect(bounded.text).toContain("t2(input?: T2Input)");
    expect(bounded.text).not.toContain("t3(");
    // Four tools rendered (the fourth to learn it does not fit), none after it.
    const perTool = counter.reads;
    counter.reads = 0;
    toolDeclarations(tools.slice(0, 1), { namespace: "skills" });
    expect(perTool).toBe(4 * counter.reads);
  });

  it("counts exactly: a bound of the whole text keeps every tool, one less drops the last", () => {
    const { tools } = countedTools(3, 2);
    const whole = toolDeclarations(tools).text.length;
    expect(toolDeclarations(tools, { maxChars: whole }).omitted).toEqual([]);
    expect(toolDeclarations(tools, { maxChars: whole - 1 }).omitted).toEqual(["t2"]);
  });
});
