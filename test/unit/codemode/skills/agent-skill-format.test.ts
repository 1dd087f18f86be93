// Skills as Agent Skills folders (src/codemode/skills/agent-skill-format.ts): what export writes
// reads back as the same skill, and a malformed folder is refused naming the file and problem.
import { describe, expect, it } from "vitest";
import {
  readSkillFolder,
  skillFolder,
  type SkillFolder,
} from "../../../../src/codemode/skills/agent-skill-format";
import { DEFAULT_SKILL_LIMITS } from "../../../../src/codemode/skills/skill-limits";

const skill = {
  name: "addUp",
  description: 'Adds "a" and b.\nSecond line: --- not front matter: `x`',
  input: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  output: { type: "number" },
  code: "async ({ a }) => a + (await codemode.one())",
};

const read = (folder: SkillFolder) => readSkillFolder(folder, DEFAULT_SKILL_LIMITS);
const withMd = (md: string): SkillFolder => {
  const folder = skillFolder(skill);
  return { ...folder, files: { ...folder.files, "SKILL.md": md } };
};

describe("Agent Skills folders", () => {
  it("writes SKILL.md with name and description front matter and reads it back", () => {
    const folder = skillFolder(skill);
    expect(folder.folder).toBe("addUp");
    expect(Object.keys(folder.files)).toEqual(["SKILL.md", "scripts/addUp.js"]);
    expect(folder.files["SKILL.md"]).toMatch(
      /^---\nname: addUp\ndescription: "Adds \\"a\\" and b\.\\nSecond/,
    );
    expect(read(folder)).toEqual(skill);
  });

  it("keeps the tool a skill needs in metadata, and drops it when the code calls no codemode", () => {
    const tagged = skillFolder({ ...skill, tool: "code" });
    expect(tagged.files["SKILL.md"]).toMatch(/\n---\n\n# addUp/);
    expect(tagged.files["SKILL.md"]).toContain('\nmetadata:\n  tool: "code"\n---\n');
    expect(read(tagged)).toEqual({ ...skill, tool: "code" });
    const pure = skillFolder({ ...skill, code: "async ({ a }) => a", tool: "code" });
    expect(read(pure)).not.toHaveProperty("tool");
    const md = tagged.files["SKILL.md"]!.replace('tool: "code"', 'tool: "no such tool!"');
    expect(() => read(withMd(md))).toThrow(
      /Skill folder "addUp": Skill "addUp"'s `tool` must be the name of the tool whose codemode it calls/,
    );
  });

  it("reads plain and single-quoted values, and ignores other keys and indented lines", () => {
    const md = skillFolder(skill).files["SKILL.md"]!.replace(
      /^---\nname: addUp\ndescription: .*\n---/,
      "---\nname: addUp\nlicense: MIT\nmetadata:\n  author: someone\ndescription: 'It''s plain'\n---",
    );
    expect(read(withMd(md)).description).toBe("It's plain");
  });

  it("refuses a malformed folder, naming the file and the problem", () => {
    const md = skillFolder(skill).files["SKILL.md"]!;
    const cases: [SkillFolder, RegExp][] = [
      [{ folder: "x", files: {} }, /Skill folder "x": has no SKILL.md/],
      [withMd(md.replace(/^---\n/, "")), /does not start with YAML front matter/],
      [withMd(md.replace(/name: addUp\n/, "")), /front matter has no `name:` line/],
      [withMd(md.replace(/description: .*\n/, "description: >\n")), /block scalars are not read/],
      [withMd(md.replace(/description: .*\n/, 'description: "open\n')), /not a closed "…" string/],
      [withMd(md.replace(/description: .*\n/, "oops no colon\n")), /line 3 is not `key: value`/],
      [withMd(md.replace("## Input schema", "## Inputs")), /has no input schema/],
      [withMd(md.replace('"required"', 'required"')), /input schema is not JSON/],
      [withMd(md.replace("name: addUp", "name: add-up")), /skill name "add-up" is not allowed/],
      [withMd(md.replace("name: addUp", "name: other")), /has no scripts\/other.js/],
    ];
    for (const [folder, message] of cases) expect(() => read(folder)).toThrow(message);
  });

  it("checks the script like a save: a free variable is named", () => {
    const folder = skillFolder({ ...skill, code: "async ({ a }) => a + base" });
    expect(() => read(folder)).toThrow(/uses `base`, defined outside its function/);
  });
});
