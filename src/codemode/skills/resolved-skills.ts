/**
 * The `skills` option (skills-options.ts) made ready once per option object: the operator's
 * read-only skills checked, put in front of the principals' store (or of a store that keeps
 * nothing, when the option has none), the owner function and the limits resolved. The servers
 * resolve it when they are created, so a bad read-only skill or a store without an owner fails
 * there, naming the problem, rather than on the first request.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { CodeModeError } from "../../errors";
import { isRecord } from "../../is-record";
import { readSkillFolder } from "./agent-skill-format";
import { withReadOnlySkills } from "./read-only-skills";
import { checkSkillDraft } from "./skill-draft";
import { skillLimits, type SkillLimits } from "./skill-limits";
import type { SkillDraft, SkillStore } from "./skill-store";
import type { SkillsOptions } from "./skills-options";

/** The option, ready for requests. */
export interface ResolvedSkills {
  store: SkillStore;
  owner: (authInfo: AuthInfo | undefined) => string | undefined;
  limits: Readonly<SkillLimits>;
}

/** The one owner of a server whose option has no store: its skills are the operator's only. */
export const READ_ONLY_OWNER = "read-only";

const resolved = new WeakMap<SkillsOptions, ResolvedSkills | null>();

/**
 * The option resolved (once per option object), or undefined when it turns skills off (no
 * store and no read-only skills).
 * @param options - the server's `skills` option
 * @throws CodeModeError `skill_invalid` naming a read-only skill that fails the checks of a save
 *   (or is given twice); `invalid_option` for a store without an `owner` function
 */
export function resolveSkills(options: SkillsOptions): ResolvedSkills | undefined {
  const known = resolved.get(options);
  if (known !== undefined) return known ?? undefined;
  const limits = skillLimits(options.limits);
  const shipped = readOnlySkills(options.readOnly ?? [], limits);
  let ready: ResolvedSkills | null;
  if (options.store) {
    if (typeof options.owner !== "function")
      throw new CodeModeError(
        "invalid_option",
        "skills.owner is missing: with skills.store, the option needs an owner function that names whose skills a call uses; pass e.g. owner: (authInfo) => authInfo?.clientId (docs/skills.md, Whose skills).",
      );
    ready = { store: withReadOnlySkills(options.store, shipped), owner: options.owner, limits };
  } else if (shipped.length > 0) {
    const owner = options.owner ?? (() => READ_ONLY_OWNER);
    ready = { store: withReadOnlySkills(keepsNothing(), shipped), owner, limits };
  } else ready = null;
  resolved.set(options, ready);
  return ready ?? undefined;
}

/**
 * The operator's skills, each checked like a save.
 * @param entries - Agent Skills folders or skills
 * @param limits - the size limits
 */
function readOnlySkills(entries: readonly unknown[], limits: Readonly<SkillLimits>): SkillDraft[] {
  const skills: SkillDraft[] = [];
  entries.forEach((entry, index) => {
    const label = isRecord(entry) && typeof entry["folder"] === "string" ? entry["folder"] : "";
    const draft =
      isRecord(entry) && isRecord(entry["files"])
        ? readSkillFolder(
            { folder: label, files: entry["files"] as Record<string, string> },
            limits,
          )
        : withPrefix(`skills.readOnly[${index}]: `, () => checkSkillDraft(entry, limits));
    if (skills.some((s) => s.name === draft.name))
      throw new CodeModeError(
        "skill_invalid",
        `skills.readOnly ships two skills named "${draft.name}"${label ? ` (the second in folder "${label}")` : ""}: keep one.`,
      );
    skills.push(draft);
  });
  return skills;
}

function withPrefix<T>(prefix: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof CodeModeError)
      throw new CodeModeError(error.code, `${prefix}${error.message}`);
    throw error;
  }
}

/** A store with no skills of its own that refuses to keep any (under the read-only ones). */
function keepsNothing(): SkillStore {
  const refused = () =>
    Promise.reject(
      new CodeModeError(
        "skill_invalid",
        "This server keeps no saved skills: it ships only the operator's read-only skills (its skills option has no store). Call those; to keep your own, the server needs a skills store.",
      ),
    );
  return {
    list: () => Promise.resolve([]),
    get: () => Promise.resolve(undefined),
    versions: () => Promise.resolve([]),
    save: refused,
    saveAll: refused,
    delete: () => Promise.resolve(false),
    rollBack: refused,
  };
}
