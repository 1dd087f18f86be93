/**
 * The skill count on saves, the same in every store (memory-skill-store.ts, sql-skill-store.ts):
 * a save that would add names past `maxSkills` is refused whole, checked before the first
 * write, so an import of several skills (`saveAll`) saves all of them or none. A name the owner
 * already has is a new version, never counted again.
 */
import { CodeModeError } from "../../errors";
import type { SkillLimits } from "./skill-limits";
import type { SkillDraft, StoredSkill } from "./skill-store";

/** The names an owner has now, as a store reads them (a Set, or a Map keyed by name). */
export interface KeptNames {
  has(name: string): boolean;
  readonly size: number;
}

/**
 * Saves `drafts` in order with `write`, or none when they would take the owner past
 * `maxSkills`. `write` runs synchronously for every draft, with no `await` in between: a
 * Durable Object applies the whole import as one step (sql-skill-store.ts).
 * @param kept - the names the owner has before the save
 * @param drafts - the checked drafts, in the order to save them
 * @param limits - the count allowed (`maxVersions` is `write`'s)
 * @param write - saves one draft, its count already allowed
 * @returns the skills saved, or a rejection with {@link tooMany}'s error
 */
export function saveWithinCount(
  kept: KeptNames,
  drafts: readonly SkillDraft[],
  limits: Pick<SkillLimits, "maxSkills">,
  write: (draft: SkillDraft) => StoredSkill,
): Promise<StoredSkill[]> {
  const added = new Set(drafts.map((d) => d.name).filter((n) => !kept.has(n)));
  if (added.size > 0 && kept.size + added.size > limits.maxSkills)
    return Promise.reject(tooMany(limits.maxSkills));
  return Promise.resolve(drafts.map(write));
}

/**
 * The refusal of a save past `maxSkills`.
 * @param max - the limit
 */
export function tooMany(max: number): CodeModeError {
  return new CodeModeError(
    "skill_invalid",
    `You already have ${max} skills, the most allowed: delete one you no longer need before saving a new one.`,
  );
}
