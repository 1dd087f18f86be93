// The skill count on saves (src/codemode/skills/skill-count.ts), where both stores decide it: a
// save past `maxSkills` is refused whole before any write; names the owner has are new versions,
// not counted again; a name twice in one import counts once.
import { describe, expect, it } from "vitest";
import { saveWithinCount } from "../../../../src/codemode/skills/skill-count";
import type { SkillDraft, StoredSkill } from "../../../../src/codemode/skills/skill-store";

const draft = (name: string): SkillDraft => ({
  name,
  description: "d",
  input: {},
  code: "async () => 1",
});

/** A write that records what it saved. */
function recorder() {
  const written: string[] = [];
  const write = (d: SkillDraft): StoredSkill => {
    written.push(d.name);
    return { ...d, version: 1, savedAt: 0 };
  };
  return { written, write };
}

describe("saveWithinCount", () => {
  it("saves every draft in order when the count allows", async () => {
    const { written, write } = recorder();
    const saved = await saveWithinCount(
      new Set(["a"]),
      [draft("b"), draft("a")],
      { maxSkills: 2 },
      write,
    );
    expect(saved.map((s) => s.name)).toEqual(["b", "a"]);
    expect(written).toEqual(["b", "a"]);
  });

  it("refuses the whole import past the count, writing nothing, and says what to do", async () => {
    const { written, write } = recorder();
    await expect(
      saveWithinCount(new Set(["a"]), [draft("b"), draft("c")], { maxSkills: 2 }, write),
    ).rejects.toThrow(/You already have 2 skills, the most allowed: delete one/);
    expect(written).toEqual([]);
  });

  it("counts a name the owner has as a new version, and a name twice once", async () => {
    const { write } = recorder();
    const full = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    await expect(
      saveWithinCount(full, [draft("a"), draft("b")], { maxSkills: 2 }, write),
    ).resolves.toHaveLength(2);
    await expect(
      saveWithinCount(new Set(["a"]), [draft("b"), draft("b")], { maxSkills: 2 }, write),
    ).resolves.toHaveLength(2);
    await expect(saveWithinCount(full, [draft("c")], { maxSkills: 2 }, write)).rejects.toThrow(
      /2 skills/,
    );
  });
});
