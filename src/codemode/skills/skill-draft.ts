/**
 * Checks what a program asked to save as a skill, on the host, where the program cannot skip it.
 * Everything the sandbox sent is untrusted: the source text may not be the function that ran
 * (the program can call the host function directly with any text), so this check does not rely
 * on the harness. It parses the source as one function (prelude-function.ts), refuses any free
 * variable other than `codemode`, `skills` and the sandbox's globals (naming it), and bounds the
 * name, the description and the schemas.
 *
 * Security: a skill runs only for its owner, with the caller's authority, so a lying source
 * gains the program nothing it could not do itself; these checks keep a saved skill callable and
 * keep its text from breaking the prelude or a tool description.
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import { CodeModeError } from "../../errors";
import { isRecord } from "../../is-record";
import { SANDBOX_GLOBALS } from "../../executor/namespace-names";
import { preludeFunction } from "../../executor/prelude-function";
import { validationSchema } from "../upstream/tool-input-schema";
import { freeVariables } from "./free-variables";
import { schemaExpansionProblem } from "./schema-expansion";
import type { SkillLimits } from "./skill-limits";
import { skillNameProblem } from "./skill-name";
import type { JsonSchema, SkillDraft } from "./skill-store";

/** Names a skill may use without declaring them, besides the sandbox's globals. */
export const SKILL_NAMESPACES: readonly string[] = ["codemode", "skills"];

/** The tools a skill may be tagged with ({@link SkillDraft.tool}): those that run skills. */
const TOOLS: readonly string[] = ["code", "execute"];

/**
 * Never part of a description: control characters other than tab and newline (C1 too: U+009B
 * starts an escape sequence in some terminals), line separators, and the invisible ones a person
 * reading the listing (status page, CLI) cannot see but a model reads: bidirectional controls,
 * zero-width characters, and Unicode tags (U+E0000–E007F, which spell out ASCII unseen).
 */
const CONTROL =
  // oxlint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;

/**
 * Checks a save request and returns the skill to store.
 * @param raw - what the program sent: `{ name, description, input, output?, code }`, and
 *   `tool` (the tool the save came from, set by the host, or an imported skill's)
 * @param limits - the size limits
 * @returns the checked skill (fresh copies of the schemas)
 * @throws CodeModeError `skill_invalid` naming the first problem and how to fix it
 */
export function checkSkillDraft(
  raw: unknown,
  limits: Pick<SkillLimits, "maxCodeChars" | "maxDescriptionChars" | "maxSchemaChars">,
): SkillDraft {
  if (!isRecord(raw)) refuse("skills.save() takes one object: { name, description, input, run }.");
  const field = (key: string): unknown => (Object.hasOwn(raw, key) ? raw[key] : undefined);
  const name = field("name");
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) refuse(nameProblem);
  const label = `Skill "${name as string}"`;
  const description = field("description");
  if (typeof description !== "string" || description.trim() === "")
    refuse(`${label} needs a \`description\`: one line saying what it does and returns.`);
  if (description.length > limits.maxDescriptionChars)
    refuse(
      `${label}'s description is ${description.length} characters; the limit is ${limits.maxDescriptionChars}. Say what it does in a line or two.`,
    );
  if (CONTROL.test(description))
    refuse(
      `${label}'s description contains control or invisible characters (such as U+${codePoint(description)}); use plain text.`,
    );
  const input = schema(field("input"), `${label}'s \`input\``, limits.maxSchemaChars);
  if (input === undefined)
    refuse(
      `${label} needs an \`input\` JSON Schema, e.g. { type: "object", properties: { owner: { type: "string" } }, required: ["owner"] }.`,
    );
  const output = schema(field("output"), `${label}'s \`output\``, limits.maxSchemaChars);
  const code = field("code");
  if (typeof code !== "string")
    refuse(`${label} needs \`run\`: the function to save, e.g. async (input) => { … }.`);
  if (code.length > limits.maxCodeChars)
    refuse(
      `${label}'s code is ${code.length} characters; the limit is ${limits.maxCodeChars}. Save a smaller function.`,
    );
  const prepared = preludeFunction(code);
  if (!prepared.ok) refuse(`${label}: ${prepared.message}`);
  const free = freeVariables(prepared.program);
  const tool = field("tool");
  // Another name would make a skill no tool lists or runs.
  if (tool !== undefined && (typeof tool !== "string" || !TOOLS.includes(tool)))
    refuse(
      `${label}'s \`tool\` must be the name of the tool whose codemode it calls: "code" or "execute".`,
    );
  const outside = free.filter((v) => !SKILL_NAMESPACES.includes(v) && !SANDBOX_GLOBALS.has(v));
  if (outside.length > 0)
    refuse(
      `${label} uses ${outside.map((v) => `\`${v}\``).join(", ")}, defined outside its function: a skill runs later in other programs, so it may use only its input, codemode.*, skills.* and the sandbox's globals. Move ${outside.length === 1 ? "it" : "them"} inside the function or pass ${outside.length === 1 ? "it" : "them"} in the input.`,
    );
  return {
    name: name as string,
    description,
    input,
    ...(output === undefined ? {} : { output }),
    code,
    // Only a skill that calls `codemode` needs a tool's; one that does not works in every tool.
    ...(tool !== undefined && free.includes("codemode") ? { tool } : {}),
  };
}

/** A JSON Schema field: a plain JSON object within the size limit that the validator takes. */
function schema(value: unknown, label: string, maxChars: number): JsonSchema | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || Array.isArray(value))
    refuse(`${label} must be a JSON Schema object such as { type: "object", properties: { … } }.`);
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    refuse(`${label} is not JSON data.`);
  }
  if (text.length > maxChars)
    refuse(`${label} is ${text.length} characters of JSON; the limit is ${maxChars}.`);
  const copy = JSON.parse(text) as JsonSchema;
  // Before the validator reads it: a few `$ref`s can stand for millions of subschemas, which
  // it would walk for every value (schema-expansion.ts). Written out, the schema must still
  // be no more subschemas than its character limit.
  const expansion = schemaExpansionProblem(copy, maxChars);
  if (expansion !== undefined) refuse(`${label} ${expansion}`);
  try {
    // Checking one value makes the validator read the whole schema (it compiles lazily).
    new Validator(validationSchema(copy) as Schema, "2020-12", false).validate({});
  } catch (error) {
    refuse(`${label} is not a usable JSON Schema: ${(error as Error).message}`);
  }
  return copy;
}

/** The first refused character of `text`, as hex digits. */
function codePoint(text: string): string {
  const found = CONTROL.exec(text)![0];
  return found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
}

function refuse(message: string): never {
  throw new CodeModeError("skill_invalid", message);
}
