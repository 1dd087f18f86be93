// The shared-worker executor's V8-style error messages and columns, read back from the code the
// model wrote: the callee named in "not a function", a `new` call's column, and the cost of
// reading them (the line is the program's own text, so its shape must not decide the host's CPU).
import { describe, expect, it } from "vitest";
import {
  engineErrorLikeV8,
  trailingMemberChain,
} from "../../../src/executor/shared-worker/shared-error-position";
import type { ExecutionOutcome } from "../../../src/executor/types";

/** An error outcome at `column` of line 1 of `code`, as the engine reports it. */
function outcomeAt(code: string, column: number, name: string, message: string): ExecutionOutcome {
  return {
    status: "error",
    error: { name, message, line: 1, column },
    logs: [],
    droppedLogs: 0,
    calls: 0,
    truncated: false,
    resultBytes: 0,
    operations: 0,
    durationMs: 0,
  };
}

/** The outcome for an error at the last `(` of `code`, and how long the mapping took. */
function mapAtLastCall(code: string, name = "TypeError", message = "not a function") {
  const outcome = outcomeAt(code, code.lastIndexOf("(") + 1, name, message);
  const started = performance.now();
  const mapped = engineErrorLikeV8(outcome, code);
  return { error: mapped.error, ms: performance.now() - started };
}

describe("engineErrorLikeV8", () => {
  it("names the callee of a call that is not a function", () => {
    expect(mapAtLastCall("await codemode . nope ?.x()").error).toMatchObject({
      message: "codemode.nope?.x is not a function",
    });
  });

  it("moves a `new` call's column to the expression's start", () => {
    const code = "const a = 1; new Foo.Bar()";
    expect(mapAtLastCall(code, "TypeError", "not a constructor").error).toMatchObject({
      column: code.indexOf("new") + 1,
    });
  });

  // The callee pattern was unanchored at its start and backtracked from every offset of the
  // line: a long dotted string before the call cost the host quadratic time (40,000 pieces:
  // seconds; a 4 MB line: hours), after the run, outside every limit of the sandbox.
  it.each([
    ["a dotted string literal", `const o = {}; const s = "${"a.".repeat(40_000)}"; o.x()`, "o.x"],
    ["dots and spaces", `const o = {}; const s = "${"a . ".repeat(40_000)}"; o.x()`, "o.x"],
    ["a dotted chain that ends in a dot", `${"a.".repeat(40_000)}(`, undefined],
  ])("reads the callee in linear time after %s", (_label, code, callee) => {
    const { error, ms } = mapAtLastCall(code);
    expect(error?.message).toBe(callee ? `${callee} is not a function` : "not a function");
    expect(ms).toBeLessThan(250);
  });

  it("reads a `new` call in linear time after many dotted pieces", () => {
    const code = `${"new a.".repeat(40_000)}b.(`;
    const { ms } = mapAtLastCall(code, "TypeError", "not a constructor");
    expect(ms).toBeLessThan(250);
  });

  it("finds the same callee as the pattern it replaces, on random lines", () => {
    const pattern = /([A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)\s*$/;
    const alphabet = ["a", "Z", "1", "_", "$", ".", "?", " ", "\t", "(", "-", "\u00a0"];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    for (let n = 0; n < 20_000; n++) {
      let line = "";
      for (let i = next() % 14; i > 0; i--) line += alphabet[next() % alphabet.length];
      expect([line, trailingMemberChain(line)]).toEqual([line, pattern.exec(line)?.[1]]);
    }
  });
});
