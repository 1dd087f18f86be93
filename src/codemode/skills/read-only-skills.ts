/**
 * An operator's read-only skills over a principal store: a {@link SkillStore} that lists the
 * operator's skills (marked `readOnly`) with every owner's own, answers them for any owner, and
 * refuses to save over, delete or roll back one, naming it. An owner's own skill of an operator
 * skill's name (saved before the operator shipped it) is hidden by it and may be deleted. The operator's skills are fixed when
 * the server starts (the product reads them from `SKILLS_DIR`, docs/skills.md); they have one
 * version and are never written to the principal store, so no principal can change what another
 * runs under that name. Use counts are kept per owner in the principal store, not for them.
 */
import { CodeModeError } from "../../errors";
import { loadRunSkills } from "./run-skills";
import type { SkillDraft, SkillStore, SkillSummary, StoredSkill } from "./skill-store";

/**
 * The store with `operator`'s skills in front.
 * @param store - each principal's own skills
 * @param operator - the operator's skills (checked drafts)
 */
export function withReadOnlySkills(store: SkillStore, operator: readonly SkillDraft[]): SkillStore {
  if (operator.length === 0) return store;
  const fixed = new Map<string, StoredSkill>(
    operator.map((d) => [d.name, Object.freeze({ ...structuredClone(d), version: 1, savedAt: 0 })]),
  );
  const refuse = (name: string, what: string): Promise<never> =>
    Promise.reject(
      new CodeModeError(
        "skill_invalid",
        `Skill "${name}" is a read-only skill the operator ships with this server: it cannot be ${what}. Save yours under another name (e.g. "my${name[0]!.toUpperCase()}${name.slice(1)}").`,
      ),
    );
  /** The owner's own listing with the operator's skills in front (same names: the operator's). */
  const merged = (own: readonly SkillSummary[]): SkillSummary[] => {
    const shipped = [...fixed.values()].map((s) => ({
      name: s.name,
      description: s.description,
      version: 1,
      latest: 1,
      ...(s.tool === undefined ? {} : { tool: s.tool }),
      readOnly: true,
    }));
    const mine = own.filter((s) => !fixed.has(s.name));
    return [...shipped, ...mine].toSorted((a, b) => (a.name < b.name ? -1 : 1));
  };
  return {
    async list(owner) {
      return merged(await store.list(owner));
    },
    get(owner, name, version) {
      const skill = fixed.get(name);
      if (skill) return Promise.resolve(version === undefined || version === 1 ? skill : undefined);
      return store.get(owner, name, version);
    },
    versions(owner, name) {
      if (fixed.has(name)) return Promise.resolve([{ version: 1, savedAt: 0, current: true }]);
      return store.versions(owner, name);
    },
    save(owner, draft, limits) {
      if (fixed.has(draft.name)) return refuse(draft.name, "overwritten");
      return store.save(owner, draft, limits);
    },
    ...(store.saveAll
      ? {
          saveAll: (owner, drafts, limits) => {
            const shipped = drafts.find((d) => fixed.has(d.name));
            if (shipped) return refuse(shipped.name, "overwritten");
            return store.saveAll!(owner, drafts, limits);
          },
        }
      : {}),
    async delete(owner, name) {
      // The principal's own skill of that name (saved before the operator shipped theirs) is
      // theirs to delete; the operator's stays, so a deletion that finds none is refused.
      if (fixed.has(name)) return (await store.delete(owner, name)) || refuse(name, "deleted");
      return store.delete(owner, name);
    },
    rollBack(owner, name, version) {
      if (fixed.has(name)) return refuse(name, "rolled back");
      return store.rollBack(owner, name, version);
    },
    ...(store.runSkills
      ? {
          // One step of the principal store (its listing, and the skills it has of the names
          // called), then the same walk over the merged view: an operator's skill of a name
          // hides the owner's, and a skill only an operator's one calls is read on its own.
          runSkills: async (owner, names) => {
            const own = await store.runSkills!(owner, names);
            const read = new Map(own.loaded.map((s) => [s.name, s]));
            return loadRunSkills(
              {
                list: () => Promise.resolve(merged(own.listed)),
                get: (o, name) => {
                  const skill = fixed.get(name) ?? read.get(name);
                  return skill ? Promise.resolve(skill) : store.get(o, name);
                },
              },
              owner,
              names,
            );
          },
        }
      : {}),
    ...(store.signatures
      ? {
          // The operator's skill of a name hides the owner's, as in the listing.
          signatures: async (owner) => {
            const own = (await store.signatures!(owner)).filter((s) => !fixed.has(s.name));
            const shipped = [...fixed.values()].map(
              ({ name, description, input, output, tool }) => ({
                name,
                description,
                input,
                ...(output === undefined ? {} : { output }),
                ...(tool === undefined ? {} : { tool }),
              }),
            );
            return [...shipped, ...own].toSorted((a, b) => (a.name < b.name ? -1 : 1));
          },
        }
      : {}),
    ...(store.recordUses
      ? {
          // The owner's skills only; a run that called only the operator's asks nothing of the
          // store (no round trip, no job after the answer).
          recordUses: (owner, uses, error, at) => {
            const own = uses.filter((u) => !fixed.has(u.name));
            return own.length === 0 ? Promise.resolve() : store.recordUses!(owner, own, error, at);
          },
        }
      : {}),
  };
}
