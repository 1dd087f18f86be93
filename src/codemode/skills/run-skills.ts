/**
 * What one run reads of its owner's skills before it starts: the listing (every name becomes a
 * property of the sandbox's `skills` object) and the stored skills its program calls literally,
 * with the skills those call, and so on. A store that answers {@link SkillStore.runSkills} does
 * it in one step (the product's Durable Object: one round trip instead of a listing, then a
 * round of reads per level of calls); any other store is read here with `list` and `get`.
 */
import { skillNameProblem } from "./skill-name";
import { calledSkillNames } from "./skill-prelude";
import type { RunSkills, SkillStore, StoredSkill } from "./skill-store";

export type { RunSkills } from "./skill-store";

/**
 * The skills a run of a program calling `names` needs, read with the store's `list` and `get`.
 * Listed names no save would take are left out (a store the library user fills may hold them),
 * and only listed names are read, so the reads are bounded by the owner's skills whatever names
 * the program writes: each is read once.
 * @param store - the owner's store (its `list` and current-version `get`)
 * @param owner - whose skills
 * @param names - the skill names the program calls literally (`calledSkillNames`)
 */
export async function loadRunSkills(
  store: Pick<SkillStore, "list" | "get">,
  owner: string,
  names: readonly string[],
): Promise<RunSkills> {
  const listed = (await store.list(owner)).filter((s) => skillNameProblem(s.name) === undefined);
  const known = new Set(listed.map((s) => s.name));
  const loaded = new Map<string, StoredSkill>();
  let wanted = [...new Set(names)].filter((n) => known.has(n));
  while (wanted.length > 0) {
    const found = await Promise.all(wanted.map((n) => store.get(owner, n)));
    const next: string[] = [];
    for (const skill of found) {
      if (!skill || loaded.has(skill.name) || !known.has(skill.name)) continue;
      loaded.set(skill.name, skill);
      for (const n of calledSkillNames(skill.code))
        if (known.has(n) && !loaded.has(n)) next.push(n);
    }
    wanted = [...new Set(next)];
  }
  return { listed, loaded: [...loaded.values()] };
}

/**
 * The skills a run of a program calling `names` needs: in one step from a store that has
 * {@link SkillStore.runSkills}, else read with {@link loadRunSkills}. What a store answers is
 * checked again here (names a save would take, loaded skills that are listed, each once), so a
 * library user's store cannot put an unlisted name on the sandbox's `skills` object.
 * @param store - the owner's store
 * @param owner - whose skills
 * @param names - the skill names the program calls literally
 */
export async function readRunSkills(
  store: SkillStore,
  owner: string,
  names: readonly string[],
): Promise<RunSkills> {
  if (!store.runSkills) return loadRunSkills(store, owner, names);
  const answer = await store.runSkills(owner, names);
  const listed = answer.listed.filter((s) => skillNameProblem(s.name) === undefined);
  const known = new Set(listed.map((s) => s.name));
  const loaded = new Map<string, StoredSkill>();
  for (const skill of answer.loaded)
    if (known.has(skill.name) && !loaded.has(skill.name)) loaded.set(skill.name, skill);
  return { listed, loaded: [...loaded.values()] };
}
