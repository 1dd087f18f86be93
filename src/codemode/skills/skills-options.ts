/**
 * The `skills` option of `codeMcpServer()` (and, next, `openApiMcpServer()`): where skills are
 * kept and whose skills a call uses. See docs/skills.md.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { SkillLimits } from "./skill-limits";
import type { SkillStore } from "./skill-store";

/** Saved skills for a code mode server. */
export interface SkillsOptions {
  /** Where skills are kept: `SqlSkillStore` in a Durable Object, `MemorySkillStore`, or yours. */
  store: SkillStore;
  /**
   * Whose skills a call saves and calls: a key per principal (an OAuth user's id, one per API
   * key, one shared key on an open server). Undefined turns skills off for that call. One
   * owner's skills never load in another owner's run.
   * @param authInfo - the verified caller, when the handler has one
   */
  owner: (authInfo: AuthInfo | undefined) => string | undefined;
  /** Bounds over `DEFAULT_SKILL_LIMITS`. */
  limits?: Partial<SkillLimits>;
}
