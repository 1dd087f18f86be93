// The prelude that places a run's skills before its program, and which skill names a text calls
// (src/codemode/skills/skill-prelude.ts); the map from a function's printed text back to the
// program's own (src/executor/original-text.ts).
import { describe, expect, it } from "vitest";
import { calledSkillNames, skillPrelude } from "../../../../src/codemode/skills/skill-prelude";
import { originalTextOf } from "../../../../src/executor/original-text";
import { prepareCode } from "../../../../src/executor/prepare-code";
import { PreparedCache } from "../../../../src/executor/prepared-cache";
import { countRegexRuns } from "../../../helpers/regex-runs";

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

  it("reads a long run of spaces after `skills` in one pass", () => {
    // Quadratic before: 40,000 spaces took a second, 200,000 about a minute (the host's thread).
    // What one expression run costs inside V8 cannot be counted from here (its backreference
    // puts it outside pattern-safety's cost model), so the time is bench/hostile-inputs.mjs's;
    // counted here: one run per call found, whatever the spaces. The 10 s timeout is a guard
    // against a hang, not a speed claim: the quadratic version took about 60 s on this input.
    const { result, runs } = countRegexRuns(() =>
      calledSkillNames(`// skills${" ".repeat(200_000)}x\nskills.a()`),
    );
    expect(result).toEqual(["a"]);
    expect(runs).toHaveLength(2);
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

  const stored = (name: string, code: string) => ({
    name,
    description: "d",
    input: {},
    code,
    version: 1,
    savedAt: 0,
  });

  it("prepares a skill's code once, and keeps it by its exact text", () => {
    const cache = new PreparedCache<string | null>((text) => text?.length ?? 0);
    const first = skillPrelude([stored("a", "async () => 1")], cache);
    expect(cache.size.entries).toBe(1);
    // Called again (another run, another owner, another name): the kept preparation.
    expect(skillPrelude([stored("a", "async () => 1")], cache)).toBe(first);
    expect(skillPrelude([stored("b", "async () => 1")], cache)).toContain('__cm$skill("b", (');
    expect(cache.size.entries).toBe(1);
    // Code that no longer prepares is kept as such, and left out again.
    expect(skillPrelude([stored("c", "1 +")], cache)).not.toContain('"c"');
    expect(skillPrelude([stored("c", "1 +")], cache)).not.toContain('"c"');
    expect(cache.size.entries).toBe(2);
  });

  it("never places another owner's code or an older version under a name", () => {
    const cache = new PreparedCache<string | null>((text) => text?.length ?? 0);
    const mine = skillPrelude([stored("report", "async () => 'mine'")], cache);
    const theirs = skillPrelude([stored("report", "async () => 'theirs'")], cache);
    expect(mine).toContain("'mine'");
    expect(theirs).toContain("'theirs'");
    expect(theirs).not.toContain("'mine'");
    // Version 2 of mine, then a roll back to 1: each run places the code it read.
    expect(skillPrelude([stored("report", "async () => 'mine, v2'")], cache)).toContain("v2");
    expect(skillPrelude([stored("report", "async () => 'mine'")], cache)).toBe(mine);
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
