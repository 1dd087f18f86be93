/**
 * Skills as Agent Skills folders (the open format: a folder with a `SKILL.md` whose YAML front
 * matter holds `name` and `description`, plus scripts), for export, import and the operator's
 * read-only skills. One skill is:
 *
 * ```
 * <name>/SKILL.md            front matter: name, description, and for a skill that calls one
 *                            tool's `codemode`, `metadata:` with `tool: "code"`; body: the input (and output)
 *                            JSON Schema as ```json blocks under "## Input schema" ("## Output
 *                            schema"), and how to call it
 * <name>/scripts/<name>.js   the function, as saved: one function expression
 * ```
 *
 * Reading is strict and names the problem: a folder is untrusted (an import comes over HTTP),
 * and what it holds goes through the same checks as a save (skill-draft.ts). The front matter is
 * read as the subset of YAML this format writes: `key: value` lines, the value plain, or quoted
 * ("…" as JSON, '…' with '' for a quote); of `metadata:`'s indented entries only `tool` is read;
 * other keys (license, compatibility, …) are ignored.
 */
import { CodeModeError } from "../../errors";
import { checkSkillDraft } from "./skill-draft";
import type { SkillLimits } from "./skill-limits";
import { skillNameProblem } from "./skill-name";
import type { SkillDraft } from "./skill-store";

/** One folder: its files by path relative to the folder (`SKILL.md`, `scripts/x.js`). */
export interface SkillFolder {
  /** The folder's name (for messages; the skill's name comes from `SKILL.md`). */
  folder: string;
  files: Record<string, string>;
}

/** Longest `SKILL.md` read (the schemas sit in it; each is bounded again by the draft check). */
const MAX_SKILL_MD_CHARS = 200_000;

/**
 * The folder of one skill.
 * @param skill - the skill (its current version)
 */
export function skillFolder(skill: SkillDraft): SkillFolder {
  const script = `scripts/${skill.name}.js`;
  const block = (title: string, schema: unknown) =>
    `## ${title}\n\n\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\`\n`;
  const md = [
    "---",
    `name: ${skill.name}`,
    // A JSON string is a YAML double-quoted scalar: any description stays one safe line.
    `description: ${JSON.stringify(skill.description)}`,
    // The spec's place for a client's own keys: the tool whose codemode the skill calls.
    ...(skill.tool === undefined ? [] : ["metadata:", `  tool: ${JSON.stringify(skill.tool)}`]),
    "---",
    "",
    `# ${skill.name}`,
    "",
    `A code mode skill: a program calls it as \`await skills.${skill.name}(input)\`. The function is`,
    `\`${script}\`; the input is checked against the schema below before it runs.`,
    "",
    block("Input schema", skill.input),
    ...(skill.output === undefined ? [] : [block("Output schema", skill.output)]),
  ].join("\n");
  return { folder: skill.name, files: { "SKILL.md": md, [script]: `${skill.code}\n` } };
}

/**
 * Reads one folder into a checked skill, with the same checks as a save.
 * @param folder - the folder's files
 * @param limits - the size limits
 * @returns the skill to store
 * @throws CodeModeError `skill_invalid` naming the folder, the file and the problem
 */
export function readSkillFolder(
  folder: SkillFolder,
  limits: Pick<SkillLimits, "maxCodeChars" | "maxDescriptionChars" | "maxSchemaChars">,
): SkillDraft {
  const where = `Skill folder "${String(folder.folder).slice(0, 100)}"`;
  const fail = (message: string): never => {
    throw new CodeModeError("skill_invalid", `${where}: ${message}`);
  };
  const files = folder.files;
  const md = Object.hasOwn(files, "SKILL.md") ? files["SKILL.md"] : undefined;
  if (typeof md !== "string")
    return fail("has no SKILL.md. Each skill is a folder with a SKILL.md and its script.");
  if (md.length > MAX_SKILL_MD_CHARS)
    fail(`SKILL.md is ${md.length} characters; the limit is ${MAX_SKILL_MD_CHARS}.`);
  const text = md.replace(/\r\n?/g, "\n");
  const head = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
  if (!head)
    return fail(
      'SKILL.md does not start with YAML front matter: put "---", then `name:` and `description:` lines, then "---" at its top.',
    );
  const front = frontMatter(head[1]!, fail);
  const body = text.slice(head[0].length);
  const name = front.get("name");
  if (name === undefined) fail("SKILL.md's front matter has no `name:` line.");
  // Before the script is looked up by it: a name that is no identifier is named as such.
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) fail(`SKILL.md: ${nameProblem}`);
  if (front.get("description") === undefined)
    fail("SKILL.md's front matter has no `description:` line.");
  const input = schemaBlock(body, "Input schema", fail);
  if (input === undefined)
    fail(
      'SKILL.md has no input schema: add a "## Input schema" heading followed by a ```json block holding the JSON Schema.',
    );
  const output = schemaBlock(body, "Output schema", fail);
  const scriptPath = `scripts/${name}.js`;
  const code = Object.hasOwn(files, scriptPath) ? files[scriptPath] : undefined;
  if (typeof code !== "string")
    fail(`has no ${scriptPath}: the skill's function, as one function expression.`);
  try {
    return checkSkillDraft(
      {
        name,
        description: front.get("description"),
        input,
        ...(output === undefined ? {} : { output }),
        code: code!.trim(),
        ...(front.has("metadata.tool") ? { tool: front.get("metadata.tool") } : {}),
      },
      limits,
    );
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** The `key: value` lines of the front matter. */
function frontMatter(text: string, fail: (message: string) => never): Map<string, string> {
  const found = new Map<string, string>();
  let inMetadata = false;
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    if (/^\s/.test(line)) {
      // `metadata:`'s entries: only `tool` is read (as "metadata.tool"); others are ignored.
      const entry = inMetadata ? /^\s+tool:\s*(.*)$/.exec(line) : null;
      if (entry) found.set("metadata.tool", scalar(entry[1]!.trim(), "tool", index + 2, fail));
      continue;
    }
    const match = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!match) fail(`SKILL.md front matter line ${index + 2} is not \`key: value\`: ${cut(line)}`);
    const [, key, raw] = match!;
    inMetadata = key === "metadata" && raw!.trim() === "";
    if (key !== "name" && key !== "description") continue;
    found.set(key!, scalar(raw!.trim(), key!, index + 2, fail));
  }
  return found;
}

/** A YAML scalar as this format writes it: plain, "JSON", or 'single-quoted'. */
function scalar(raw: string, key: string, line: number, fail: (m: string) => never): string {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === "string") return value;
    } catch {
      // named below
    }
    return fail(`SKILL.md front matter line ${line}: \`${key}\` is not a closed "…" string.`);
  }
  if (raw.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(raw))
      fail(`SKILL.md front matter line ${line}: \`${key}\` is not a closed '…' string.`);
    return raw.slice(1, -1).replaceAll("''", "'");
  }
  if (raw === "" || raw === "|" || raw === ">" || /^[|>][+-]?$/.test(raw))
    fail(
      `SKILL.md front matter line ${line}: \`${key}\` must be on its line (block scalars are not read); quote it as "…".`,
    );
  return raw;
}

/** The JSON of the ```json block under `## <title>`, or undefined when there is no heading. */
function schemaBlock(
  body: string,
  title: string,
  fail: (message: string) => never,
): Record<string, unknown> | undefined {
  const heading = new RegExp(`^##\\s+${title}\\s*$`, "im").exec(body);
  if (!heading) return undefined;
  const after = body.slice(heading.index + heading[0].length);
  const block = /^\s*```(?:json)?\n([\s\S]*?)\n```/.exec(after);
  if (!block) return fail(`SKILL.md's "## ${title}" is not followed by a \`\`\`json block.`);
  try {
    return JSON.parse(block[1]!) as Record<string, unknown>;
  } catch (error) {
    return fail(`SKILL.md's ${title.toLowerCase()} is not JSON: ${(error as Error).message}`);
  }
}

function cut(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
