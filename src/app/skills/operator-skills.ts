/**
 * The operator's read-only skills (`SKILLS_DIR`, docs/skills.md): read from the folder by the
 * local launcher (cli/serve.mjs, with this module's {@link readSkillsDir} check through the
 * product module) and handed to the Worker as JSON in {@link LAUNCH_SKILLS_VAR}; or, deployed,
 * read by `code-mode-mcp deploy` and bundled as a module that sets the global
 * `Symbol.for(BUNDLED_SKILLS_KEY)` to the same JSON (a var is limited to 5 KB). Checked again
 * here, since either is just text. A skill that fails the check is left out and named on the
 * status page; the launcher and deploy refuse one, so that happens only with a hand-made value.
 */
import { CodeModeError } from "../../errors";
import { readSkillFolder, type SkillFolder } from "../../codemode/skills/agent-skill-format";
import { checkSkillDraft } from "../../codemode/skills/skill-draft";
import { skillLimits, type SkillLimits } from "../../codemode/skills/skill-limits";
import type { SkillDraft } from "../../codemode/skills/skill-store";
import { BUNDLED_SKILLS_KEY, LAUNCH_SKILLS_VAR } from "../config/setting-names";

/** The operator's skills and the problems of those left out. */
export interface OperatorSkills {
  skills: SkillDraft[];
  problems: string[];
}

const memo = new Map<string, OperatorSkills>();

/**
 * The JSON text of the operator's skills: the launcher's var, else what deploy bundled; "" when
 * there are none.
 * @param env - the Worker's env
 */
export function shippedSkillsText(env: Cloudflare.Env): string {
  const launched = (env as unknown as Record<string, unknown>)[LAUNCH_SKILLS_VAR];
  if (typeof launched === "string" && launched !== "") return launched;
  const bundled = (globalThis as Record<symbol, unknown>)[Symbol.for(BUNDLED_SKILLS_KEY)];
  return typeof bundled === "string" ? bundled : "";
}

/**
 * The operator's skills handed to the Worker in its env.
 * @param env - the Worker's env
 * @param limits - the size limits (`SKILLS_MAX_*`)
 */
export function operatorSkills(env: Cloudflare.Env, limits: Partial<SkillLimits>): OperatorSkills {
  const text = shippedSkillsText(env);
  if (text === "") return { skills: [], problems: [] };
  const key = `${JSON.stringify(limits)}\n${text}`;
  const kept = memo.get(key);
  if (kept) return kept;
  const found: OperatorSkills = { skills: [], problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) found.problems.push(`${LAUNCH_SKILLS_VAR} is not a JSON list.`);
  for (const raw of Array.isArray(parsed) ? parsed : []) {
    try {
      const draft = checkSkillDraft(raw, skillLimits(limits));
      if (found.skills.some((s) => s.name === draft.name))
        throw new CodeModeError("skill_invalid", `Skill "${draft.name}" is shipped twice.`);
      found.skills.push(draft);
    } catch (error) {
      found.problems.push(`operator skill left out: ${(error as Error).message}`);
    }
  }
  memo.set(key, found);
  return found;
}

/**
 * Reads the operator's folder as the launcher found it: one {@link SkillFolder} per skill,
 * each checked like a save. Used in Node by the launcher (through the product module).
 * @param folders - each sub-folder of `SKILLS_DIR` with its files
 * @param limits - the size limits (`SKILLS_MAX_*`)
 * @returns the checked skills, or the first problem (naming the folder, the file and the fix)
 */
export function readSkillsDir(
  folders: readonly SkillFolder[],
  limits: Partial<SkillLimits>,
): { ok: true; skills: SkillDraft[] } | { ok: false; message: string } {
  const skills: SkillDraft[] = [];
  try {
    for (const folder of folders) {
      const draft = readSkillFolder(folder, skillLimits(limits));
      if (skills.some((s) => s.name === draft.name))
        throw new CodeModeError(
          "skill_invalid",
          `Skill folder "${folder.folder}": another folder already ships a skill named "${draft.name}".`,
        );
      skills.push(draft);
    }
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  return { ok: true, skills };
}
