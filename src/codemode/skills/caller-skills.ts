/**
 * What a code mode server needs of its `skills` option for one request: the store, the owner
 * the caller maps to and the resolved limits; and how a run's skill notes (saved, not saved)
 * join its tool result.
 */
import type { AuthInfo, CallToolResult } from "@modelcontextprotocol/server";
import { resolveSkills } from "./resolved-skills";
import type { SkillLimits } from "./skill-limits";
import type { SkillStore, SkillSummary } from "./skill-store";
import type { SkillsOptions } from "./skills-options";

/** The skills of one caller. */
export interface CallerSkills {
  store: SkillStore;
  owner: string;
  limits: Readonly<SkillLimits>;
  /** The tool the request is for (`code`, `execute`): what saves are tagged with. */
  tool: string;
}

/**
 * The caller's skills, or undefined when the option maps the caller to no owner (or turns
 * skills off: no store and no read-only skills).
 * @param options - the server's `skills` option
 * @param authInfo - the verified caller, if any
 * @param tool - the tool the request is for
 */
export function skillsFor(
  options: SkillsOptions,
  authInfo: AuthInfo | undefined,
  tool: string,
): CallerSkills | undefined {
  const ready = resolveSkills(options);
  const owner = ready?.owner(authInfo);
  if (!ready || owner === undefined) return undefined;
  return { store: ready.store, owner, limits: ready.limits, tool };
}

/**
 * The skills a tool can run: those that call no tool's `codemode` and those saved from it. A
 * skill saved from `code` calls upstream tools, which `execute`'s `codemode` does not have (and
 * `execute`'s calls `codemode.request`, which `code`'s does not), so each tool lists only its own.
 * @param skills - the owner's skills
 * @param tool - the tool
 */
export function usableIn<T extends Pick<SkillSummary, "tool">>(
  skills: readonly T[],
  tool: string,
): T[] {
  return skills.filter((s) => s.tool === undefined || s.tool === tool);
}

/**
 * The result with one more text block holding the notes, when there are any.
 * @param result - the run's tool result
 * @param notes - lines from `SkillRun.commit`
 */
export function withNotes(result: CallToolResult, notes: readonly string[]): CallToolResult {
  if (notes.length === 0) return result;
  return { ...result, content: [...result.content, { type: "text", text: notes.join("\n") }] };
}

/**
 * The text of a failed run's result (its first text block), as a skill's last error.
 * @param result - the run's redacted tool result
 */
export function errorText(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === "text");
  return first && "text" in first ? first.text : "the run failed";
}

/**
 * Whether a request may show tool descriptions, so the caller's skills are worth reading for
 * them: a request naming its method (`Mcp-Method`, 2026-07-28) shows them only for `tools/list`;
 * one that does not name it (2025-era) might be a listing.
 * @param request - the HTTP request, when there is one
 */
export function mayListTools(request: Request | undefined): boolean {
  const method = request?.headers.get("mcp-method");
  return method === null || method === undefined || method === "tools/list";
}
