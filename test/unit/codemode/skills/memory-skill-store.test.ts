// The in-memory SkillStore (src/codemode/skills/memory-skill-store.ts): versions, roll back,
// delete, owners apart, and the count limits.
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import type { SkillDraft } from "../../../../src/codemode/skills/skill-store";

const draft = (name: string, code = "async () => 1"): SkillDraft => ({
  name,
  description: `${name} does it.`,
  input: {},
  code,
});
const limits = { maxSkills: 2, maxVersions: 3 };

describe("MemorySkillStore", () => {
  it("makes each save a new current version, and rolls back", async () => {
    let now = 1_000;
    const store = new MemorySkillStore(() => now++);
    expect((await store.save("a", draft("s", "async () => 1"), limits)).version).toBe(1);
    expect((await store.save("a", draft("s", "async () => 2"), limits)).version).toBe(2);
    expect((await store.get("a", "s"))?.code).toBe("async () => 2");
    expect((await store.rollBack("a", "s", 1)).code).toBe("async () => 1");
    expect((await store.get("a", "s"))?.version).toBe(1);
    expect(await store.list("a")).toEqual([
      { name: "s", description: "s does it.", version: 1, latest: 2 },
    ]);
    expect(await store.versions("a", "s")).toEqual([
      { version: 2, savedAt: 1_001, current: false },
      { version: 1, savedAt: 1_000, current: true },
    ]);
    // A save after a roll back continues the numbering.
    expect((await store.save("a", draft("s"), limits)).version).toBe(3);
  });

  it("keeps owners apart", async () => {
    const store = new MemorySkillStore();
    await store.save("a", draft("s"), limits);
    expect(await store.get("b", "s")).toBeUndefined();
    expect(await store.list("b")).toEqual([]);
  });

  it("bounds skills per owner and versions per skill", async () => {
    const store = new MemorySkillStore();
    await store.save("a", draft("one"), limits);
    await store.save("a", draft("two"), limits);
    await expect(store.save("a", draft("three"), limits)).rejects.toThrow(
      "You already have 2 skills, the most allowed",
    );
    for (let i = 0; i < 4; i++) await store.save("a", draft("one"), limits);
    expect((await store.versions("a", "one")).map((v) => v.version)).toEqual([5, 4, 3]);
    await expect(store.rollBack("a", "one", 1)).rejects.toThrow(
      'Skill "one" has no kept version 1',
    );
  });

  it("deletes every version at once", async () => {
    const store = new MemorySkillStore();
    await store.save("a", draft("s"), limits);
    expect(await store.delete("a", "s")).toBe(true);
    expect(await store.get("a", "s", 1)).toBeUndefined();
    expect(await store.delete("a", "s")).toBe(false);
  });
});
