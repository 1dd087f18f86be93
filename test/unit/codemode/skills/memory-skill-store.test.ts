// The in-memory SkillStore (src/codemode/skills/memory-skill-store.ts) against the store
// contract every SkillStore meets (test/helpers/stores/skill-store-contract.ts).
import { describe, expect, it } from "vitest";
import {
  MAX_DELETED_NAMES,
  MemorySkillStore,
} from "../../../../src/codemode/skills/memory-skill-store";
import { SKILL_STORE_CONTRACT, contractClock } from "../../../helpers/stores/skill-store-contract";

describe("MemorySkillStore", () => {
  for (const [name, check] of Object.entries(SKILL_STORE_CONTRACT))
    it(name, () => check(new MemorySkillStore(contractClock())));

  it("keeps a bounded record of deleted names, and still never reuses a version number", async () => {
    // Each deleted name stayed in memory for ever (its numbering continues when saved again),
    // outside the skill count: save and delete under new names grew the store without end.
    const store = new MemorySkillStore(contractClock());
    const limits = { maxSkills: 5, maxVersions: 5 };
    const draft = (name: string) => ({ name, description: "d", input: {}, code: "async () => 1" });
    await store.save("a", draft("first"), limits);
    await store.save("a", draft("first"), limits);
    await store.delete("a", "first");
    let lastVersion = 0;
    for (let i = 0; i < MAX_DELETED_NAMES + 40; i++) {
      lastVersion = (await store.save("a", draft(`s${i}`), limits)).version;
      await store.delete("a", `s${i}`);
    }
    const kept = (store as unknown as { deleted: Map<string, Map<string, number>> }).deleted;
    expect(kept.get("a")!.size).toBeLessThanOrEqual(MAX_DELETED_NAMES + 1);
    expect((await store.save("a", draft("first"), limits)).version).toBeGreaterThan(2);
    const last = `s${MAX_DELETED_NAMES + 39}`;
    expect((await store.save("a", draft(last), limits)).version).toBe(lastVersion + 1);
  });
});
