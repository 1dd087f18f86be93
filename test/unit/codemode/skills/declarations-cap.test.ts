// skills.declarations() (src/codemode/skills/skill-run.ts) within MAX_DECLARATIONS_CHARS: any
// client of an open local server may save skills, and 100 skills with input schemas nested 120
// deep (7 KB each, within maxSchemaChars) declared as 9.2 MB on every call. Past the bound the
// rest are named only, in a closing comment; an honest skill set is declared whole, as before.
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { MAX_DECLARATIONS_CHARS, skillLimits } from "../../../../src/codemode/skills/skill-limits";
import { SkillRun } from "../../../../src/codemode/skills/skill-run";
import { toolDeclarations } from "../../../../src/declarations/tool-declarations";
import type { HostCallContext } from "../../../../src/executor/types";

/** An object schema nested `depth` levels deep, each level with property `field`. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { field: schema } };
  return schema;
}

/** What `await skills.declarations()` answers for owner "a" after saving `count` skills. */
async function declarationsOf(count: number, depth: number): Promise<string> {
  const store = new MemorySkillStore();
  const limits = skillLimits();
  for (let i = 0; i < count; i++)
    await store.save(
      "a",
      { name: `s${i}`, description: `Skill ${i}.`, input: nested(depth), code: "async () => 1" },
      limits,
    );
  const code = "async () => skills.declarations()";
  const run = await SkillRun.open({ store, owner: "a", limits, tool: "code" }, code);
  const declarations = run!.request().namespaces["skills"]!["declarations"]!;
  return (await declarations([], {} as HostCallContext)) as string;
}

describe("skills.declarations() bounded", () => {
  it("declares 100 deep skills up to the bound and names the rest", async () => {
    expect(JSON.stringify(nested(120)).length).toBeLessThanOrEqual(skillLimits().maxSchemaChars);
    const text = await declarationsOf(100, 120);
    const [declared, note] = text.split("\n// ");
    expect(declared!.length).toBeLessThanOrEqual(MAX_DECLARATIONS_CHARS);
    const named =
      /^(\d+) more \(names only; declaring them would pass 262,144 characters\): (.*)\n$/.exec(
        note!,
      );
    expect(named).not.toBeNull();
    const omitted = named![2]!.split(", ");
    expect(omitted.length).toBe(Number(named![1]));
    expect(omitted.length).toBeGreaterThan(0);
    // Every skill is either declared or named, once.
    const declaredNames = [...declared!.matchAll(/^ {2}(s\d+)\(/gm)].map((m) => m[1]);
    expect(declaredNames.length).toBeGreaterThan(0);
    expect([...declaredNames, ...omitted].toSorted()).toEqual(
      Array.from({ length: 100 }, (_, i) => `s${i}`).toSorted(),
    );
  });

  it("declares an honest skill set whole, with no note", async () => {
    const text = await declarationsOf(3, 2);
    expect(text).not.toContain("names only");
    const tools = [0, 1, 2].map((i) => ({
      name: `s${i}`,
      description: `Skill ${i}.`,
      inputSchema: nested(2),
    }));
    expect(text).toBe(toolDeclarations(tools, { namespace: "skills" }).text);
  });
});
