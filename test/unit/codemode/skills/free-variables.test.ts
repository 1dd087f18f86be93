// Free variables of a skill's function (src/codemode/skills/free-variables.ts): what the save
// check names when a skill closes over something the saving program defined.
import { describe, expect, it } from "vitest";
import { preludeFunction } from "../../../../src/executor/prelude-function";
import { freeVariables } from "../../../../src/codemode/skills/free-variables";

function free(source: string): string[] {
  const fn = preludeFunction(source);
  if (!fn.ok) throw new Error(fn.message);
  return freeVariables(fn.program);
}

describe("freeVariables", () => {
  it.each([
    ["async (input) => input.a + base", ["base"]],
    ["async ({ a, b: [c, ...d] }, e = f) => a + c + d.length + e", ["f"]],
    ["async () => { let x = 1; { const y = x; } return y; }", ["y"]],
    ["async () => { for (let i = 0; i < 3; i++) {} return i; }", ["i"]],
    ["async () => { if (1) { var v = 1; } return v; }", []],
    ["async () => { try { a(); } catch ({ message }) { return message; } }", ["a"]],
    ["async function named() { return named.length + arguments.length; }", []],
    ["async () => arguments", ["arguments"]],
    ["async () => { total = 1; }", ["total"]],
    ["async () => { [x, y.z] = [1, 2]; }", ["x", "y"]],
    ["async () => { for (k in o) {} }", ["k", "o"]],
    ["async () => ({ key: 1, [dyn]: 2, short }).key", ["dyn", "short"]],
    ["async () => { class A extends B { m() { return A; } } return new A(); }", ["B"]],
    ["async () => { const C = class D { m() { return D; } }; return C; }", []],
    ["async () => { out: for (;;) { break out; } }", []],
    ["async () => { function h() { return g(); } function g() {} return h(); }", []],
    ["async () => { switch (1) { case 1: let s = 2; return s; } }", []],
    [
      "async () => codemode.list({ at: Date.now(), re: skills.other })",
      ["codemode", "Date", "skills"],
    ],
    ["async (x) => x?.[key]", ["key"]],
    ["async (x) => `${x}${tail}`", ["tail"]],
  ])("%s → %j", (source, expected) => {
    expect(free(source)).toEqual(expected);
  });
});
