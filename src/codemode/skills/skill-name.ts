/**
 * What a skill may be called. A skill is called as `skills.<name>(input)` in a program, so its
 * name must be a plain identifier that shadows nothing on the `skills` object: not one of its own
 * functions (`save`), not a name every object inherits (`constructor`, `toString`,
 * `__proto__`), not `then` (the object would look like a promise), not a reserved word.
 */

/** Longest skill name. */
export const MAX_SKILL_NAME = 64;

/** Letters first, then letters, digits and `_`: no `$` and no leading `_` (`__proto__`, `__cm$…`). */
const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Names `skills.*` keeps for itself, or that every object has. */
const TAKEN = new Set([
  // the `skills` object's own functions
  "save",
  "declarations",
  // what objects inherit or promise machinery reads
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "toJSON",
  "then",
  "prototype",
  // reserved words (strict mode and modules)
  ...(
    "await break case catch class const continue debugger default delete do else enum export " +
    "extends false finally for function if implements import in instanceof interface let new " +
    "null package private protected public return static super switch this throw true try " +
    "typeof var void while with yield arguments eval undefined NaN Infinity"
  ).split(" "),
]);

/**
 * Why `name` cannot name a skill, or undefined when it can.
 * @param name - the proposed name (any value: it comes from a program)
 * @returns a message naming the rule and a fix
 */
export function skillNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "")
    return 'A skill needs a `name`: a string such as "issueReport".';
  const shown = JSON.stringify(
    name.length > MAX_SKILL_NAME ? `${name.slice(0, MAX_SKILL_NAME)}…` : name,
  );
  if (name.length > MAX_SKILL_NAME)
    return `The skill name ${shown} is longer than ${MAX_SKILL_NAME} characters; choose a shorter one.`;
  if (!NAME.test(name))
    return `The skill name ${shown} is not allowed: use letters, digits and _ only, starting with a letter (e.g. "issueReport"), so it can be called as skills.<name>().`;
  if (TAKEN.has(name))
    return `The skill name ${shown} is taken by the skills object or the language itself; choose another (e.g. "${name}Skill").`;
  return undefined;
}
