/**
 * The bound on the skills' code one run loads. Each skill is bounded (`maxCodeChars`), but a run
 * loads every skill the program calls and those they call, prepared on the host and compiled in
 * the sandbox on every run: without a bound on the total, a short program calling 100 skills of
 * 32,000 characters made a 3.2 M-character module each run (seconds of host CPU per run).
 */
import { CodeModeError } from "../../errors";

/**
 * Refuses a run whose skills hold more code than `maxRunCodeChars`; counting lengths costs
 * nothing, so it is checked before the prelude is built.
 * @param skills - the skills the run loads
 * @param maxRunCodeChars - the limit
 * @throws CodeModeError `skills_too_long` naming the total, the limit, the setting and what to do
 */
export function checkRunCodeSize(
  skills: Iterable<{ readonly code: string }>,
  maxRunCodeChars: number,
): void {
  let total = 0;
  let count = 0;
  for (const skill of skills) {
    total += skill.code.length;
    count++;
  }
  if (total <= maxRunCodeChars) return;
  throw new CodeModeError(
    "skills_too_long",
    `The ${count} skills this run calls (with the skills they call) hold ${total} characters of code; ` +
      `the limit is ${maxRunCodeChars} (maxRunCodeChars; setting SKILLS_MAX_RUN_CODE_CHARS). ` +
      "Call fewer skills in one run: split the work over several runs, passing results between them.",
  );
}
