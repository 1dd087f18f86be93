/**
 * The `skills` option of `codeMcpServer()` and `openApiMcpServer()`: where skills are kept, whose
 * skills a call uses, and the operator's read-only skills. See docs/skills.md.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { SkillFolder } from "./agent-skill-format";
import type { SkillLimits } from "./skill-limits";
import type { SkillDraft, SkillStore } from "./skill-store";

/** Saved skills for a code mode server. */
export interface SkillsOptions {
  /**
   * Where principals' skills are kept: `SqlSkillStore` in a Durable Object, `MemorySkillStore`,
   * or yours. Without one the server has only the `readOnly` skills: programs call them, and
   * `skills.save()` is refused (with neither, skills are off).
   */
  store?: SkillStore;
  /**
   * Whose skills a call saves and calls: a key per principal (an OAuth user's id, one per API
   * key, one shared key on an open server). Undefined turns skills off for that call. One
   * owner's skills never load in another owner's run. Required with a `store`; without one,
   * every caller has the same (read-only) skills.
   * @param authInfo - the verified caller, when the handler has one
   */
  owner?: (authInfo: AuthInfo | undefined) => string | undefined;
  /**
   * The operator's read-only skills, shipped with the server: callable by every owner, listed
   * with `readOnly: true`, never saved over, deleted or rolled back. Each is an Agent Skills
   * folder (`{ folder, files: { "SKILL.md": …, "scripts/<name>.js": … } }`, what
   * `npx code-mode-mcp skills pack <dir> <file.json>` bundles from a folder at build time) or a
   * skill as `{ name, description, input, output?, code, tool? }`. Each is checked like a save
   * when the server is created; a bad one throws `skill_invalid` naming it.
   */
  readOnly?: readonly (SkillFolder | SkillDraft)[];
  /** Bounds over `DEFAULT_SKILL_LIMITS`. */
  limits?: Partial<SkillLimits>;
}
