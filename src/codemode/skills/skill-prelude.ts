/**
 * The module text that places a run's skills before its program (`ExecuteRequest.prelude`):
 * each skill's function, instrumented like the program, handed to the sandbox's skills
 * extension (sandbox/ext-skills.ts) by name. The functions are evaluated at the module's top
 * level, before any of the program's code runs; their free variables can only be the sandbox's
 * globals, `codemode` and `skills` (checked at save, skill-draft.ts).
 */
import { preludeFunction } from "../../executor/prelude-function";
import { PreparedCache } from "../../executor/prepared-cache";
import type { StoredSkill } from "./skill-store";

/** The binding the prelude imports `register` as (the `__cm$` prefix is refused in programs). */
const REGISTER = "__cm$skill";

/**
 * Each skill's instrumented function (or null: it no longer prepares) by its exact source: the
 * preparation (acorn's parse and the budget ticks) is a pure function of that text, so a skill
 * called again is not parsed again. Keyed by the code alone: the same text prepares the same for
 * every owner and name, and an updated or rolled back skill is other text (a new entry).
 */
const preparedSkills = new PreparedCache<string | null>((text) => text?.length ?? 0);

/**
 * The prelude for `skills`, or undefined when there are none.
 * @param skills - the skills whose code the run needs (checked when saved; prepared again here,
 *   or taken from `cache` by their exact code)
 * @param cache - the prepared functions by code (the host's own unless a test gives one)
 * @returns the module text
 */
export function skillPrelude(
  skills: readonly StoredSkill[],
  cache: PreparedCache<string | null> = preparedSkills,
): string | undefined {
  if (skills.length === 0) return undefined;
  const parts = [`import { register as ${REGISTER} } from "./ext-skills.js";`];
  for (const skill of skills) {
    const text = cache.get(skill.code, undefined, () => {
      const fn = preludeFunction(skill.code);
      return fn.ok ? fn.text : null;
    });
    // A stored skill that no longer prepares (a store edited by hand) is left out: calling it
    // says it was not loaded, and the other skills still work.
    if (text === null) continue;
    parts.push(`${REGISTER}(${JSON.stringify(skill.name)}, ${text});`);
  }
  return parts.join("\n");
}

/**
 * The skill names a text calls literally: `skills.name` and `skills["name"]`.
 * @param text - a program or a skill's code
 * @returns the names, each once
 */
export function calledSkillNames(text: string): string[] {
  const names = new Set<string>();
  // One `\s*` between each two tokens, never two in a row: `skills\s*(?:\?\.)?\s*\[` split a
  // run of spaces both ways and took quadratic time ("skills" and 200,000 spaces in a comment:
  // a minute of the host's thread before the run started).
  const pattern =
    /\bskills\s*(?:\?\.\s*|\.\s*(?=[A-Za-z])|(?=\[))(?:([A-Za-z]\w*)|\[\s*(["'`])([A-Za-z]\w*)\2\s*\])/g;
  for (const m of text.matchAll(pattern)) names.add((m[1] ?? m[3])!);
  return [...names];
}
