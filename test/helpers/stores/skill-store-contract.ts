/**
 * What every SkillStore must do (src/codemode/skills/skill-store.ts), as checks a test file runs
 * against its store: the in-memory one in Node (test/unit/codemode/skills/), the SQLite one in
 * a real Durable Object (test/workers/app/skills/).
 */
import { expect } from "vitest";
import type { SkillDraft, SkillStore } from "../../../src/codemode/skills/skill-store";

const draft = (name: string, code = "async () => 1"): SkillDraft => ({
  name,
  description: `${name} does it.`,
  input: { type: "object" },
  code,
});
const limits = { maxSkills: 2, maxVersions: 3 };

/** The checks, by name; each gets a fresh store whose clock starts at 1,000 and ticks by 1. */
export const SKILL_STORE_CONTRACT: Record<string, (store: SkillStore) => Promise<void>> = {
  "makes each save a new current version, and rolls back": async (store) => {
    expect((await store.save("a", draft("s", "async () => 1"), limits)).version).toBe(1);
    expect(
      (
        await store.save(
          "a",
          { ...draft("s", "async () => 2"), output: { type: "number" } },
          limits,
        )
      ).version,
    ).toBe(2);
    expect(await store.get("a", "s")).toEqual({
      ...draft("s", "async () => 2"),
      output: { type: "number" },
      version: 2,
      savedAt: 1_001,
    });
    expect((await store.rollBack("a", "s", 1)).code).toBe("async () => 1");
    expect((await store.get("a", "s"))?.version).toBe(1);
    expect((await store.get("a", "s", 2))?.code).toBe("async () => 2");
    // A store that counts uses (optional) adds `uses`; the rest is the same for every store.
    expect((await store.list("a")).map(({ uses: _uses, ...summary }) => summary)).toEqual([
      { name: "s", description: "s does it.", version: 1, latest: 2 },
    ]);
    expect(await store.versions("a", "s")).toEqual([
      { version: 2, savedAt: 1_001, current: false },
      { version: 1, savedAt: 1_000, current: true },
    ]);
    // A save after a roll back continues the numbering.
    expect((await store.save("a", draft("s"), limits)).version).toBe(3);
  },
  "keeps each version's tool, and lists the current one's": async (store) => {
    await store.save("a", { ...draft("s", "async () => codemode.x()"), tool: "code" }, limits);
    await store.save("a", draft("s", "async () => 2"), limits);
    expect((await store.get("a", "s", 1))?.tool).toBe("code");
    expect(await store.get("a", "s")).not.toHaveProperty("tool");
    expect((await store.list("a"))[0]).not.toHaveProperty("tool");
    await store.rollBack("a", "s", 1);
    expect((await store.list("a"))[0]).toMatchObject({ name: "s", version: 1, tool: "code" });
  },
  "keeps owners apart": async (store) => {
    await store.save("a", draft("s"), limits);
    expect(await store.get("b", "s")).toBeUndefined();
    expect(await store.list("b")).toEqual([]);
    expect(await store.versions("b", "s")).toEqual([]);
    expect(await store.delete("b", "s")).toBe(false);
    expect((await store.get("a", "s"))?.name).toBe("s");
  },
  "bounds skills per owner and versions per skill": async (store) => {
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
  },
  "deletes every version at once": async (store) => {
    await store.save("a", draft("s"), limits);
    await store.save("a", draft("s"), limits);
    expect(await store.delete("a", "s")).toBe(true);
    expect(await store.get("a", "s", 1)).toBeUndefined();
    expect(await store.list("a")).toEqual([]);
    expect(await store.delete("a", "s")).toBe(false);
  },
  "never reuses a version number of a deleted name": async (store) => {
    await store.save("a", draft("s", "async () => 1"), limits);
    await store.save("a", draft("s", "async () => 2"), limits);
    expect(await store.delete("a", "s")).toBe(true);
    // Saved again, the name continues its numbering: a run record naming v2 names one code.
    const again = await store.save("a", draft("s", "async () => 3"), limits);
    expect(again.version).toBe(3);
    expect((await store.list("a")).map((s) => [s.name, s.version, s.latest])).toEqual([
      ["s", 3, 3],
    ]);
    expect(await store.get("a", "s", 2)).toBeUndefined();
    expect((await store.versions("a", "s")).map((v) => v.version)).toEqual([3]);
    await store.delete("a", "s");
    expect((await store.save("a", draft("s"), limits)).version).toBe(4);
    // Another owner's numbering is their own.
    expect((await store.save("b", draft("s"), limits)).version).toBe(1);
  },
  "saves several all or none": async (store) => {
    // Optional in the interface; both of ours have it.
    expect(store.saveAll).toBeTypeOf("function");
    await store.save("a", draft("one"), limits);
    // One kept and two new names would be three skills: none of them is saved.
    await expect(
      store.saveAll!("a", [draft("one", "async () => 9"), draft("two"), draft("three")], limits),
    ).rejects.toThrow("You already have 2 skills, the most allowed");
    expect((await store.list("a")).map((s) => [s.name, s.version])).toEqual([["one", 1]]);
    const saved = await store.saveAll!("a", [draft("one", "async () => 9"), draft("two")], limits);
    expect(saved.map((s) => [s.name, s.version])).toEqual([
      ["one", 2],
      ["two", 1],
    ]);
    expect((await store.get("a", "one"))?.code).toBe("async () => 9");
  },
  "reads what a run needs in one step: the listing and the skills it calls, through calls": async (
    store,
  ) => {
    // Optional in the interface; ours have it (the product's answers it in one round trip).
    expect(store.runSkills).toBeTypeOf("function");
    const room = { maxSkills: 5, maxVersions: 3 };
    await store.save("a", draft("top", "async () => skills.mid(1)"), room);
    await store.save("a", draft("mid", "async () => skills.leaf(1) + skills.nope(1)"), room);
    await store.save("a", draft("leaf", "async () => 1"), room);
    await store.save("a", draft("other", "async () => 2"), room);
    await store.save("b", draft("top", "async () => 'b'"), room);
    const names = (skills: { name: string }[]) => skills.map((s) => s.name).toSorted();
    const run = await store.runSkills!("a", ["top", "unknown"]);
    expect(names(run.listed)).toEqual(["leaf", "mid", "other", "top"]);
    expect(names(run.loaded)).toEqual(["leaf", "mid", "top"]);
    expect(run.loaded.find((s) => s.name === "top")?.code).toBe("async () => skills.mid(1)");
    // Another owner's skill of the same name is theirs alone.
    const other = await store.runSkills!("b", ["top", "mid"]);
    expect(names(other.listed)).toEqual(["top"]);
    expect(other.loaded.map((s) => [s.name, s.code])).toEqual([["top", "async () => 'b'"]]);
    // A new version is what the next run reads; a deleted skill is read no more.
    await store.save("a", draft("top", "async () => skills.mid(2)"), room);
    await store.delete("a", "leaf");
    const later = await store.runSkills!("a", ["top"]);
    expect(later.loaded.map((s) => [s.name, s.version, s.code]).toSorted()).toEqual([
      ["mid", 1, "async () => skills.leaf(1) + skills.nope(1)"],
      ["top", 2, "async () => skills.mid(2)"],
    ]);
    expect(await store.runSkills!("nobody", ["top"])).toEqual({ listed: [], loaded: [] });
  },
  "answers each current version's signature, without the code": async (store) => {
    // Optional in the interface; ours have it (what skills.declarations() reads, no code).
    expect(store.signatures).toBeTypeOf("function");
    const room = { maxSkills: 5, maxVersions: 3 };
    await store.save("a", { ...draft("two", "async () => 1"), tool: "code" }, room);
    await store.save("a", { ...draft("two", "async () => 2"), output: { type: "number" } }, room);
    await store.save("a", draft("one"), room);
    await store.save("b", draft("theirs"), room);
    expect(await store.signatures!("a")).toEqual([
      { name: "one", description: "one does it.", input: { type: "object" } },
      {
        name: "two",
        description: "two does it.",
        input: { type: "object" },
        output: { type: "number" },
      },
    ]);
    // The current version after a roll back, and nothing of another owner's or a deleted skill.
    await store.rollBack("a", "two", 1);
    await store.delete("a", "one");
    expect(await store.signatures!("a")).toEqual([
      { name: "two", description: "two does it.", input: { type: "object" }, tool: "code" },
    ]);
    expect(await store.signatures!("nobody")).toEqual([]);
  },
};

/** A clock for the contract: 1,000, 1,001, … */
export function contractClock(): () => number {
  let now = 1_000;
  return () => now++;
}
