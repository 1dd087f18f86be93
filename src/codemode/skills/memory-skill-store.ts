/**
 * A {@link SkillStore} in memory: for tests and for a single isolate that keeps nothing across
 * restarts. Same behaviour as the Durable Object store (durable-skill-store.ts), which the shared
 * store tests check side by side.
 *
 * Layout: owner → name → { current, versions by number }, and owner → deleted name → its highest
 * version (so a name saved again continues its numbering). Nothing expires; limits are the
 * caller's (`save` enforces `maxSkills` and `maxVersions`).
 */
import { CodeModeError } from "../../errors";
import { loadRunSkills } from "./run-skills";
import { saveWithinCount } from "./skill-count";
import type { SkillLimits } from "./skill-limits";
import type {
  RunSkills,
  SkillDraft,
  SkillSignature,
  SkillStore,
  SkillSummary,
  SkillVersionInfo,
  StoredSkill,
} from "./skill-store";

interface Entry {
  current: number;
  versions: Map<number, StoredSkill>;
  /** The highest version ever saved (kept versions may have lost it past `maxVersions`). */
  latest: number;
}

/**
 * Deleted names whose numbering is kept one by one, per owner (here and in sql-skill-store.ts).
 * Past it, the oldest are folded into one floor under the name "" (no skill can have it): every
 * name saved new starts above it, so no version number is reused while the record stays bounded
 * (save and delete under new names grew it without end, outside the skill count).
 */
export const MAX_DELETED_NAMES = 1000;

/** Skills kept in this isolate's memory. */
export class MemorySkillStore implements SkillStore {
  private readonly owners = new Map<string, Map<string, Entry>>();
  private readonly deleted = new Map<string, Map<string, number>>();

  /** @param now - the clock (injected by tests) */
  constructor(private readonly now: () => number = Date.now) {}

  /** {@inheritDoc SkillStore.list} */
  list(owner: string): Promise<SkillSummary[]> {
    const skills = this.owners.get(owner) ?? new Map<string, Entry>();
    return Promise.resolve(
      [...skills]
        .map(([name, entry]) => {
          const current = entry.versions.get(entry.current)!;
          return {
            name,
            description: current.description,
            version: entry.current,
            latest: entry.latest,
            ...(current.tool === undefined ? {} : { tool: current.tool }),
          };
        })
        .toSorted((a, b) => (a.name < b.name ? -1 : 1)),
    );
  }

  /** {@inheritDoc SkillStore.get} */
  get(owner: string, name: string, version?: number): Promise<StoredSkill | undefined> {
    const entry = this.owners.get(owner)?.get(name);
    const found = entry?.versions.get(version ?? entry.current);
    return Promise.resolve(found && structuredClone(found));
  }

  /** {@inheritDoc SkillStore.runSkills} */
  runSkills(owner: string, names: readonly string[]): Promise<RunSkills> {
    return loadRunSkills(this, owner, names);
  }

  /** {@inheritDoc SkillStore.signatures} */
  signatures(owner: string): Promise<SkillSignature[]> {
    const skills = this.owners.get(owner) ?? new Map<string, Entry>();
    return Promise.resolve(
      [...skills.values()]
        .map((entry) => {
          // Copies of what a caller may change, never the code (not read at all).
          const { name, description, input, output, tool } = entry.versions.get(entry.current)!;
          return {
            name,
            description,
            input: structuredClone(input),
            ...(output === undefined ? {} : { output: structuredClone(output) }),
            ...(tool === undefined ? {} : { tool }),
          };
        })
        .toSorted((a, b) => (a.name < b.name ? -1 : 1)),
    );
  }

  /** {@inheritDoc SkillStore.versions} */
  versions(owner: string, name: string): Promise<SkillVersionInfo[]> {
    const entry = this.owners.get(owner)?.get(name);
    if (!entry) return Promise.resolve([]);
    return Promise.resolve(
      [...entry.versions.values()]
        .map((v) => ({
          version: v.version,
          savedAt: v.savedAt,
          current: v.version === entry.current,
        }))
        .toSorted((a, b) => b.version - a.version),
    );
  }

  /** {@inheritDoc SkillStore.save} */
  save(
    owner: string,
    draft: SkillDraft,
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill> {
    return this.saveAll(owner, [draft], limits).then(([stored]) => stored!);
  }

  /** {@inheritDoc SkillStore.saveAll} */
  saveAll(
    owner: string,
    drafts: readonly SkillDraft[],
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill[]> {
    return saveWithinCount(this.owners.get(owner) ?? new Map(), drafts, limits, (draft) =>
      this.write(owner, draft, limits),
    );
  }

  private write(
    owner: string,
    draft: SkillDraft,
    limits: Pick<SkillLimits, "maxVersions">,
  ): StoredSkill {
    let skills = this.owners.get(owner);
    if (!skills) this.owners.set(owner, (skills = new Map()));
    let entry = skills.get(draft.name);
    // A name deleted before continues its numbering.
    // A new name may have been deleted long ago, its entry folded into the floor ("").
    const deleted = this.deleted.get(owner);
    const gone = deleted?.get(draft.name) ?? (entry ? 0 : (deleted?.get("") ?? 0));
    deleted?.delete(draft.name);
    if (!entry) {
      entry = { current: 0, versions: new Map(), latest: gone };
      skills.set(draft.name, entry);
    }
    const version = Math.max(entry.latest, ...entry.versions.keys()) + 1;
    entry.latest = version;
    const stored: StoredSkill = { ...structuredClone(draft), version, savedAt: this.now() };
    entry.versions.set(version, stored);
    entry.current = version;
    // Oldest first, never the current one.
    for (const old of [...entry.versions.keys()].toSorted((a, b) => a - b)) {
      if (entry.versions.size <= limits.maxVersions) break;
      if (old !== entry.current) entry.versions.delete(old);
    }
    return structuredClone(stored);
  }

  /** {@inheritDoc SkillStore.delete} */
  delete(owner: string, name: string): Promise<boolean> {
    const entry = this.owners.get(owner)?.get(name);
    if (!entry) return Promise.resolve(false);
    let deleted = this.deleted.get(owner);
    if (!deleted) this.deleted.set(owner, (deleted = new Map()));
    // Last in insertion order, so the oldest fold first.
    deleted.delete(name);
    deleted.set(name, entry.latest);
    for (const [old, latest] of deleted) {
      if (deleted.size <= MAX_DELETED_NAMES + (deleted.has("") ? 1 : 0)) break;
      if (old === "") continue;
      deleted.set("", Math.max(deleted.get("") ?? 0, latest));
      deleted.delete(old);
    }
    return Promise.resolve(this.owners.get(owner)!.delete(name));
  }

  /** {@inheritDoc SkillStore.rollBack} */
  rollBack(owner: string, name: string, version: number): Promise<StoredSkill> {
    const entry = this.owners.get(owner)?.get(name);
    const found = entry?.versions.get(version);
    if (!entry || !found) return Promise.reject(notKept(name, version));
    entry.current = version;
    return Promise.resolve(structuredClone(found));
  }
}

/**
 * The refusal of a roll back to a version that is not kept (shared with the Durable Object store).
 * @param name - the skill
 * @param version - the version asked for
 */
export function notKept(name: string, version: number): CodeModeError {
  return new CodeModeError(
    "skill_invalid",
    `Skill "${name}" has no kept version ${version}: list its versions and pick one of those.`,
  );
}
