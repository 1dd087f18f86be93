// The shared-worker executor's V8-style error messages and columns, read back from the code the
// model wrote: the callee named in "not a function", a `new` call's column, and the cost of
// reading them (the line is the program's own text, so its shape must not decide the host's CPU).
import { describe, expect, it } from "vitest";
import {
  engineErrorLikeV8,
  trailingMemberChain,
} from "../../../src/executor/shared-worker/shared-error-position";
import type { ExecutionOutcome } from "../../../src/executor/types";
import { countRegexRuns, growth, type RegexRun } from "../../helpers/regex-runs";

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

/** A run given more than 1,000 characters: the whole line, not one character of it. */
const readsWholeLine = (run: RegexRun) => run.length > 1_000;

/** The first characters of an expression's source: enough to tell this file's expressions apart. */
const sourceStart = (run: RegexRun) => run.source.slice(0, 6);

/**
 * The outcome for an error at the last `(` of `code`, and the regular-expression runs the
 * mapping made (counted, not timed: our rule). The backwards scan tests one character per run.
 * A run on the whole line by an expression not in `whole` is refused before it starts (the old
 * callee pattern held the test for seconds), and so are more than a million runs.
 */
function mapAtLastCall(
  code: string,
  name = "TypeError",
  message = "not a function",
  whole: string[] = [],
) {
  const outcome = outcomeAt(code, code.lastIndexOf("(") + 1, name, message);
  const { result, runs } = countRegexRuns(
    () => engineErrorLikeV8(outcome, code),
    (run) => readsWholeLine(run) && !whole.includes(sourceStart(run)),
  );
  return { error: result.error, runs };
}

/** Sources (their start) of the runs on the whole line. */
const wholeLineRuns = (runs: RegexRun[]) => runs.filter(readsWholeLine).map(sourceStart);

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
  // seconds; a 4 MB line: hours), after the run, outside every limit of the sandbox. Counted:
  // the scan's runs grow linearly with the pieces (n and 4n), and no expression but the `new`
  // one reads the whole line (what happens inside that one run is timed by
  // bench/hostile-inputs.mjs, not here).
  it.each([
    [
      "a dotted string literal",
      (n: number) => `const o = {}; const s = "${"a.".repeat(n)}"; o.x()`,
      "o.x",
      [],
    ],
    [
      "dots and spaces",
      (n: number) => `const o = {}; const s = "${"a . ".repeat(n)}"; o.x()`,
      "o.x",
      [],
    ],
    [
      "a dotted chain that ends in a dot",
      (n: number) => `${"a.".repeat(n)}(`,
      undefined,
      ["\\bnew\\"],
    ],
    // The scan walks the whole chain here; the callee's spaces are taken out in one pass.
    ["a dotted chain", (n: number) => `${"a.".repeat(n)}b(`, `${"a.".repeat(40_000)}b`, ["\\s+"]],
  ])("reads the callee in linear time after %s", (_label, line, callee, whole) => {
    const { error, runs } = mapAtLastCall(line(40_000), undefined, undefined, whole);
    expect(error?.message).toBe(callee ? `${callee} is not a function` : "not a function");
    expect(wholeLineRuns(runs)).toEqual(whole);
    const runsAt = (n: number) => mapAtLastCall(line(n), undefined, undefined, whole).runs.length;
    expect(growth(10_000, runsAt, 20)).toMatchObject({
      linear: true,
    });
  });

  it("reads a `new` call in linear time after many dotted pieces", () => {
    const line = (n: number) => `${"new a.".repeat(n)}b.(`;
    const { runs } = mapAtLastCall(line(40_000), "TypeError", "not a constructor", ["\\bnew\\"]);
    expect(wholeLineRuns(runs)).toEqual(["\\bnew\\"]);
    expect(runs).toHaveLength(1);
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
