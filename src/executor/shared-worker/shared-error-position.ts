/**
 * Brings the engine's error reports of the shared-worker executor closer to V8's (what the
 * per-run isolate reports), from the submitted code and the error's position: QuickJS says
 * `not a function` without naming the callee, and places a call's or a `new` expression's
 * column at its `(`, where V8 places it at the expression's start. Both are read from the
 * code the model wrote, so the model sees the same message and position in both executors.
 */
import type { ExecutionOutcome } from "../types";

const SPACE = /\s/;
const IDENTIFIER_PART = /[\w$]/;
const IDENTIFIER_START = /[A-Za-z_$]/;
/** A `new` expression ending right before its `(`. */
const NEW_CALL = /\bnew\s+[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*$/;

/**
 * The outcome with the error's message and column as V8 would give them, when the engine's
 * position points at a call's `(` in `code`; otherwise the outcome unchanged.
 * @param outcome - an outcome of the shared-worker executor
 * @param code - the code as submitted (positions are in it)
 */
export function engineErrorLikeV8(outcome: ExecutionOutcome, code: string): ExecutionOutcome {
  const error = outcome.error;
  if (!error || error.line === undefined || error.column === undefined) return outcome;
  const text = code.split("\n")[error.line - 1];
  const at = error.column - 1;
  if (text === undefined || text[at] !== "(") return outcome;
  const before = text.slice(0, at);
  if (error.name === "TypeError" && error.message === "not a function") {
    const callee = trailingMemberChain(before);
    if (callee) {
      const name = callee.replace(/\s+/g, "");
      return { ...outcome, error: { ...error, message: `${name} is not a function` } };
    }
  }
  const created = NEW_CALL.exec(before);
  if (created) return { ...outcome, error: { ...error, column: created.index + 1 } };
  return outcome;
}

/**
 * The member chain ending `text` (`codemode.nope`, `a?.b.c`; trailing whitespace left out), or
 * undefined: what `/([A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)\s*$/` matches, found by
 * one scan backwards from the end. Not that pattern: unanchored at its start, it backtracks from
 * every offset of the line, and the line is the program's own text (40,000 dotted pieces in a
 * string before the call held the host for seconds, a 4 MB line for hours).
 * @param text - a line of the submitted code up to a call's `(`
 */
export function trailingMemberChain(text: string): string | undefined {
  let end = text.length;
  while (end > 0 && SPACE.test(text[end - 1]!)) end--;
  let start: number | undefined;
  for (let at = end; ;) {
    // One identifier ending at `at`: the run of identifier characters, less leading digits.
    let run = at;
    while (run > 0 && IDENTIFIER_PART.test(text[run - 1]!)) run--;
    let first = run;
    while (first < at && !IDENTIFIER_START.test(text[first]!)) first++;
    if (first === at) break;
    start = first;
    // Digits before it: the identifier starts inside the run, so nothing before joins the chain.
    if (first !== run) break;
    // `\s*\??\.\s*` before it, read backwards.
    let dot = first;
    while (dot > 0 && SPACE.test(text[dot - 1]!)) dot--;
    if (dot === 0 || text[dot - 1] !== ".") break;
    dot--;
    if (dot > 0 && text[dot - 1] === "?") dot--;
    while (dot > 0 && SPACE.test(text[dot - 1]!)) dot--;
    at = dot;
  }
  return start === undefined ? undefined : text.slice(start, end);
}
