// The host's check of a skill to save (src/codemode/skills/skill-draft.ts, skill-name.ts,
// src/executor/prelude-function.ts): every refusal names the problem and the fix.
import { describe, expect, it } from "vitest";
import { checkSkillDraft } from "../../../../src/codemode/skills/skill-draft";
import { skillLimits } from "../../../../src/codemode/skills/skill-limits";
import { preludeFunction } from "../../../../src/executor/prelude-function";

const limits = skillLimits();
const good = {
  name: "report",
  description: "Counts things.",
  input: { type: "object" },
  code: "async (input) => Object.keys(input).length",
};

describe("checkSkillDraft", () => {
  it("returns the skill with fresh copies", () => {
    const draft = checkSkillDraft(good, limits);
    expect(draft).toEqual(good);
    expect(draft.input).not.toBe(good.input);
  });

  it("accepts a method as toString prints one", () => {
    expect(
      checkSkillDraft({ ...good, code: "async run(input) { return input; }" }, limits).code,
    ).toBe("async run(input) { return input; }");
  });

  it.each([
    [{ ...good, name: "__proto__" }, /not allowed: use letters, digits and _ only/],
    [{ ...good, name: "x".repeat(65) }, /longer than 64 characters/],
    [{ ...good, name: "toString" }, /taken by the skills object or the language/],
    [{ ...good, name: 7 }, /needs a `name`/],
    [{ ...good, description: "" }, /needs a `description`/],
    [{ ...good, description: "a\u0000b" }, /control or invisible characters/],
    [{ ...good, description: "a\u2028b" }, /control or invisible characters/],
    [{ ...good, description: "a\u009bb" }, /control or invisible characters \(such as U\+009B\)/],
    [{ ...good, description: "a\u202eb" }, /control or invisible characters \(such as U\+202E\)/],
    [{ ...good, description: "a\u200bb" }, /control or invisible characters/],
    [{ ...good, description: "Adds.\u{e0049}\u{e0067}" }, /such as U\+E0049/],
    [{ ...good, input: undefined }, /needs an `input` JSON Schema/],
    [{ ...good, input: [1] }, /must be a JSON Schema object/],
    [{ ...good, input: { type: "object", description: "x".repeat(9_000) } }, /the limit is 8000/],
    [{ ...good, output: "string" }, /`output` must be a JSON Schema object/],
    [{ ...good, code: 5 }, /needs `run`/],
    [{ ...good, code: `async () => ${"1+".repeat(20_000)}1` }, /the limit is 32000/],
    [{ ...good, code: "x) ; globalThis.evil = 1; (y" }, /not one function/],
    [{ ...good, code: "async () => 1 //" }, /^(?!.*not one function)/],
    [{ ...good, code: "async () => { __cm$t(); }" }, /reserved by the sandbox/],
    [{ ...good, code: "async () => import('x')" }, /Dynamic import/],
    [
      { ...good, code: "async () => secret + other" },
      /uses `secret`, `other`, defined outside its function.*Move them inside/,
    ],
    ["nope", /takes one object/],
  ])("refuses %j", (raw, message) => {
    if (String(message) === String(/^(?!.*not one function)/)) {
      // A trailing line comment cannot swallow the wrapper's closing parenthesis.
      expect(checkSkillDraft(raw, limits).code).toBe("async () => 1 //");
      return;
    }
    expect(() => checkSkillDraft(raw, limits)).toThrow(message);
  });
});

describe("preludeFunction", () => {
  it("instruments the function with budget ticks", () => {
    const fn = preludeFunction("async (n) => { while (n--) {} return n; }");
    expect(fn.ok && fn.text).toBe(
      "(\nasync (n) => {__cm$t(); while (n--) {__cm$t();} return n; }\n)",
    );
  });
});
