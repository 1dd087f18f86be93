/**
 * Finds where in the model's code a runtime error happened: the first stack frame inside the
 * generated `user.js` module, mapped back through the instrumentation's insertions.
 */
import { offsetOf, originalOffset, positionOf, type Insertion } from "./position-map";

/** What error-position mapping needs of the prepared code. */
export interface MappableCode {
  module: string;
  source: string;
  insertions: Insertion[];
}

const USER_FRAME = /user\.js:(\d+):(\d+)/;

/**
 * Returns `{ line, column }` (1-based, in the submitted code) of the first user frame in
 * `stack`, or nothing when the stack has none.
 * @param stack - an error stack from the sandbox
 * @param code - the prepared code the module was generated from
 */
export function userErrorPosition(
  stack: string | undefined,
  code: MappableCode,
): { line?: number; column?: number } {
  const match = stack ? USER_FRAME.exec(stack) : null;
  if (!match) return {};
  const generated = offsetOf(code.module, { line: Number(match[1]), column: Number(match[2]) });
  if (generated === undefined) return {};
  return positionOf(code.source, originalOffset(generated, code.insertions));
}
