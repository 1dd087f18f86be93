/**
 * The cap on a program's length, checked before anything is done with the code. A program's
 * start costs time linear in its length (the host's parse and instrumentation, the sandbox's
 * compile) while it holds a runner, so an unbounded program let one client hold every runner
 * for seconds with a few large requests (issue #40). Counting `code.length` costs nothing.
 */
import { CodeModeError } from "../errors";

/**
 * Refuses a program longer than the run's `maxCodeChars`.
 * @param code - the program as the caller sent it
 * @param maxCodeChars - the run's limit
 * @throws CodeModeError `code_too_long` naming the length, the limit and what to do
 */
export function checkCodeLength(code: string, maxCodeChars: number): void {
  if (code.length <= maxCodeChars) return;
  throw new CodeModeError(
    "code_too_long",
    `The program is ${code.length} characters; the limit is ${maxCodeChars} (maxCodeChars). ` +
      "Send a shorter program: fetch data with codemode calls instead of writing it into the code.",
  );
}
