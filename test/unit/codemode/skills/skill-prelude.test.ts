// The prelude that places a run's skills before its program, and which skill names a text calls
// (src/codemode/skills/skill-prelude.ts); the map from a function's printed text back to the
// program's own (src/executor/original-text.ts).
import { describe, expect, it } from "vitest";
import { calledSkillNames, skillPrelude } from "../../../../src/codemode/skills/skill-prelude";
import { originalTextOf } from "../../../../src/executor/original-text";
import { prepareCode } from "../../../../src/executor/prepare-code";

describe("calledSkillNames", () => {
  it("finds literal calls only", () => {
    expect(
      calledSkillNames(
        "skills.a(1); skills ?. b(); skills['c'](); skills[`d`]; skills[x]; myskills.e(); skills.save()",
      ),
    ).toEqual(["a", "b", "c", "d", "save"]);
    expect(calledSkillNames('skills?.["e"]; skills.\n  f(); skills.["g"]; skills?.h')).toEqual([
      "e",
      "f",
      "h",
    ]);
  });

  it("reads a long run of spaces after `skills` in linear time", () => {
    // Quadratic before: 40,000 spaces took a second, 200,000 about a minute (the host's thread).
    const started = performance.now();
    expect(calledSkillNames(`// skills${" ".repeat(200_000)}x\nskills.a()`)).toEqual(["a"]);
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 10_000);
});

describe("skillPrelude", () => {
  it("registers each skill's instrumented function", () => {
    const text = skillPrelude([
      { name: "a", description: "d", input: {}, code: "async () => 1", version: 1, savedAt: 0 },
    ]);
    expect(text).toBe(
      'import { register as __cm$skill } from "./ext-skills.js";\n__cm$skill("a", (\nasync () => (__cm$t(), 1)\n));',
    );
    expect(skillPrelude([])).toBeUndefined();
  });
});

describe("originalTextOf", () => {
  it("maps a function's instrumented text back to the program's", () => {
    const prepared = prepareCode(
      "const f = async (n) => { for (;;) {} };\nreturn f;",
      "/* prelude */",
    );
    if (!prepared.ok) throw new Error(prepared.message);
    const printed = "async (n) => {__cm$t(); for (;;) {__cm$t();} }";
    expect(prepared.module).toContain(printed);
    expect(originalTextOf(prepared)(printed)).toBe("async (n) => { for (;;) {} }");
    expect(originalTextOf(prepared)("/* prelude */")).toBeUndefined();
    expect(originalTextOf(prepared)("not in it")).toBeUndefined();
  });
});
