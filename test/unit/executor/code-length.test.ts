// A program's length cap: decided before anything else is done with the code, at the edge.
import { describe, expect, it } from "vitest";
import { CodeModeError } from "../../../src/errors";
import { checkCodeLength } from "../../../src/executor/code-length";
import { DEFAULT_LIMITS, resolveLimits } from "../../../src/executor/limits";
import { startRun } from "../../../src/executor/run-start";

describe("checkCodeLength", () => {
  it("takes a program of exactly the limit and refuses one character more", () => {
    expect(() => checkCodeLength("x".repeat(10), 10)).not.toThrow();
    let caught: unknown;
    try {
      checkCodeLength("x".repeat(11), 10);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CodeModeError);
    expect(caught).toMatchObject({
      code: "code_too_long",
      message: expect.stringMatching(/11 characters; the limit is 10 \(maxCodeChars\)\. Send a/),
    });
  });
});

describe("maxCodeChars", () => {
  it("defaults to 64 Ki characters and is settable up to 16 Mi", () => {
    expect(DEFAULT_LIMITS.maxCodeChars).toBe(65_536);
    expect(resolveLimits({ maxCodeChars: 16 * 1_048_576 }).maxCodeChars).toBe(16 * 1_048_576);
    expect(() => resolveLimits({ maxCodeChars: 16 * 1_048_576 + 1 })).toThrow(/maxCodeChars/);
    expect(() => resolveLimits({ maxCodeChars: 0 })).toThrow(/maxCodeChars/);
  });
});

describe("startRun and the length cap", () => {
  const body = (n: number) => `return 1;${" ".repeat(n - 9)}`;

  it("prepares a program at the cap", () => {
    const start = startRun({ code: body(100) }, resolveLimits({ maxCodeChars: 100 }));
    expect(start.ok).toBe(true);
  });

  it("refuses a program past the cap before it is parsed (no SyntaxError is looked for)", () => {
    // Past the cap and not JavaScript: the answer is the length, so no parse happened.
    const start = startRun({ code: `(${body(100)}` }, resolveLimits({ maxCodeChars: 100 }));
    expect(start).toMatchObject({
      ok: false,
      outcome: {
        status: "error",
        calls: 0,
        error: { name: "CodeModeError", message: expect.stringMatching(/101 characters/) },
      },
    });
  });

  it("counts the program only, not a prelude, and a run's limit over the executor's", () => {
    const defaults = resolveLimits({ maxCodeChars: 100 });
    const prelude = `const pad = "${"p".repeat(500)}";`;
    expect(startRun({ code: body(100), prelude }, defaults).ok).toBe(true);
    expect(startRun({ code: body(200), limits: { maxCodeChars: 200 } }, defaults).ok).toBe(true);
  });
});
