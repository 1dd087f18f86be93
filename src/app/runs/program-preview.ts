/**
 * The line of a program the runs table shows. Most programs start with their wrapper
 * (`async () => {`), so the first line told every run apart by nothing: the preview is the first
 * line that says what the program does (its first statement or comment), or the whole of a
 * one-line program.
 */

/** The longest preview kept (characters). */
export const PREVIEW_CHARS = 120;

/** A line that only opens or closes the program's function, or a fence around it. */
const WRAPPER =
  /^(?:(?:export\s+default\s+)?(?:async\s*)?(?:\(\s*\)|function\s*[\w$]*\s*\(\s*\))\s*(?:=>)?\s*\{|[{}();\s]*|```[\w-]*)$/;

/**
 * The first meaningful line of `code`, at most {@link PREVIEW_CHARS} characters.
 * @param code - the program as the model sent it
 * @returns the line, trimmed
 */
export function programPreview(code: string): string {
  const lines = code
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const meaningful = lines.find((line) => !WRAPPER.test(line)) ?? lines[0] ?? "";
  return meaningful.slice(0, PREVIEW_CHARS);
}
