/**
 * Brings the engine's error reports of the shared-worker executor closer to V8's (what the
 * per-run isolate reports), from the submitted code and the error's position: QuickJS says
 * `not a function` without naming the callee, and places a call's or a `new` expression's
 * column at its `(`, where V8 places it at the expression's start. Both are read from the
 * code the model wrote, so the model sees the same message and position in both executors.
 */
import type { ExecutionOutcome } from "./types";

/** The member chain ending right before a call's `(`: `codemode.nope`, `a?.b.c`. */
const CALLEE = /([A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)\s*$/;
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
    const callee = CALLEE.exec(before)?.[1];
    if (callee) {
      const name = callee.replace(/\s+/g, "");
      return { ...outcome, error: { ...error, message: `${name} is not a function` } };
    }
  }
  const created = NEW_CALL.exec(before);
  if (created) return { ...outcome, error: { ...error, column: created.index + 1 } };
  return outcome;
}
