/**
 * The skills part of a tool description (`code`, `execute`): how to save and call skills, then
 * the caller's skills with the first line of each description, or, past the room it is given,
 * their names only, cut with a count. Whatever it lists fits `room` characters.
 *
 * Descriptions are untrusted text (a program wrote them): each shows as one line of at most
 * {@link MAX_SHOWN} characters, with control and line-separator characters turned into spaces
 * and backticks into quotes, so none can start a line, a list item or a code span of its own.
 * Names are identifiers (skill-name.ts), safe as they are.
 */
import type { SkillSummary } from "./skill-store";

/** Characters of a description's first line shown in a listing. */
export const MAX_SHOWN = 100;

/** Characters of a description that are reserved for skills when a server has them. */
export const SKILLS_ROOM = 512;

const HOW =
  "Skills: `await skills.save({ name, description, input: <JSON Schema>, run: async (input) => … })` keeps a function this program defines (only if the run succeeds; it may use only its input, codemode.* and skills.*). Call one: `await skills.<name>(input)`.";

/**
 * The section for `skills`, within `room` characters.
 * @param skills - the caller's skills
 * @param room - most characters the section may take
 * @returns the section (empty when not even the instructions fit)
 */
export function skillsSection(skills: readonly SkillSummary[], room: number): string {
  if (HOW.length > room) return "";
  if (skills.length === 0) return HOW;
  const full = `${HOW}\nYours:\n${skills.map((s) => `- ${s.name}: ${shown(s.description)}`).join("\n")}`;
  if (full.length <= room) return full;
  let listed = `${HOW}\nYours (names only; \`await skills.declarations()\` gives their types):`;
  for (let i = 0; i < skills.length; i++) {
    const next = `${listed}${i === 0 ? " " : ", "}${skills[i]!.name}`;
    const rest = skills.length - i - 1;
    const tail = rest > 0 ? `, … ${rest} more` : "";
    if (next.length + tail.length > room) {
      const cut = `${listed}${i === 0 ? " " : ", "}… ${skills.length - i} more`;
      return cut.length <= room ? cut : HOW;
    }
    listed = next;
  }
  return listed;
}

/** A description as one bounded line that cannot break the listing's structure. */
function shown(description: string): string {
  const line = description
    .split(/\r\n|\r|\n/, 1)[0]!
    // oxlint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
    .replaceAll("`", "'")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN - 1)}…` : line;
}
