// The SQLite SkillStore (src/codemode/skills/sql-skill-store.ts) in a real Durable Object's
// storage, against the contract every SkillStore meets (test/helpers/stores/skill-store-contract.ts).
// It borrows the product's RUN_HISTORY objects for their SQLite: the store makes its own tables.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_DELETED_NAMES } from "../../../../src/codemode/skills/memory-skill-store";
import { SqlSkillStore } from "../../../../src/codemode/skills/sql-skill-store";
import { SKILL_STORE_CONTRACT, contractClock } from "../../../helpers/stores/skill-store-contract";

/** Runs `check` with a store over a fresh object's SQLite. */
async function inObject(check: (store: SqlSkillStore, sql: SqlStorage) => Promise<void>) {
  const stub = env.RUN_HISTORY.get(env.RUN_HISTORY.idFromName(`skills-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (_object: unknown, state) =>
    check(new SqlSkillStore(state.storage.sql, contractClock()), state.storage.sql),
  );
}

/** Limits no case here meets. */
const LIMITS = { maxSkills: 5, maxVersions: 5 };

/** A skill's draft, `s` unless named otherwise. */
const draft = (name = "s") => ({ name, description: "d", input: {}, code: "async () => 1" });

describe("SqlSkillStore", () => {
  for (const [name, check] of Object.entries(SKILL_STORE_CONTRACT))
    it(name, () => inObject((store) => check(store)));

  it("keeps a bounded record of deleted names, and still never reuses a version number", async () => {
    // Each deleted name left a row for ever (its numbering continues when saved again), outside
    // the skill count: save and delete under new names grew a principal's storage without end.
    await inObject(async (store, sql) => {
      await store.save("a", draft("first"), LIMITS);
      await store.save("a", draft("first"), LIMITS);
      await store.delete("a", "first");
      let lastVersion = 0;
      for (let i = 0; i < MAX_DELETED_NAMES + 40; i++) {
        lastVersion = (await store.save("a", draft(`s${i}`), LIMITS)).version;
        await store.delete("a", `s${i}`);
      }
      const [{ n }] = sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM skill_deleted WHERE owner = 'a'")
        .toArray() as [{ n: number }];
      expect(n).toBeLessThanOrEqual(MAX_DELETED_NAMES + 1);
      // "first" was version 2 when deleted; its row is gone, its number is not reused.
      expect((await store.save("a", draft("first"), LIMITS)).version).toBeGreaterThan(2);
      // A name deleted lately continues exactly (new names start above the folded ones).
      const last = `s${MAX_DELETED_NAMES + 39}`;
      expect((await store.save("a", draft(last), LIMITS)).version).toBe(lastVersion + 1);
    });
  });

  it("reads of a database no save has written create no tables (no storage per caller)", async () => {
    await inObject(async (store, sql) => {
      expect(await store.list("a")).toEqual([]);
      expect(await store.get("a", "s")).toBeUndefined();
      expect(await store.get("a", "s", 1)).toBeUndefined();
      expect(await store.versions("a", "s")).toEqual([]);
      expect(await store.delete("a", "s")).toBe(false);
      await expect(store.rollBack("a", "s", 1)).rejects.toThrow('Skill "s" has no kept version 1');
      await store.recordUses("a", [{ name: "s", version: 1, calls: 1 }], "boom");
      expect(sql.exec("SELECT name FROM sqlite_master").toArray()).toEqual([]);
      await store.save("a", draft(), LIMITS);
      expect(sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray()).not.toEqual(
        [],
      );
    });
  });

  it("adds the tool column to a table made before it; kept skills work in every tool", async () => {
    await inObject(async (_store, sql) => {
      // The table as the first release made it, with one skill in it.
      sql.exec(`CREATE TABLE skill_versions (
        owner TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
        description TEXT NOT NULL, input TEXT NOT NULL, output TEXT, code TEXT NOT NULL,
        saved_at INTEGER NOT NULL, PRIMARY KEY (owner, name, version))`);
      sql.exec(`CREATE TABLE skills (owner TEXT NOT NULL, name TEXT NOT NULL,
        current INTEGER NOT NULL, latest INTEGER NOT NULL, PRIMARY KEY (owner, name))`);
      sql.exec(
        "INSERT INTO skill_versions VALUES ('a', 'old', 1, 'd', '{}', NULL, 'async () => 1', 5)",
      );
      sql.exec("INSERT INTO skills VALUES ('a', 'old', 1, 1)");
      const store = new SqlSkillStore(sql, contractClock());
      expect(await store.get("a", "old")).not.toHaveProperty("tool");
      const code = "async () => codemode.x()";
      await store.save("a", { ...draft(), code, tool: "code" }, LIMITS);
      expect((await store.list("a")).map((s) => [s.name, s.tool])).toEqual([
        ["old", undefined],
        ["s", "code"],
      ]);
    });
  });

  it("counts uses per skill and keeps the last failed run's error with its version", async () => {
    await inObject(async (store) => {
      await store.save("a", draft(), LIMITS);
      await store.recordUses("a", [{ name: "s", version: 1, calls: 2 }]);
      await store.recordUses("a", [{ name: "s", version: 1, calls: 1 }], "Error: boom");
      // Another owner's runs, and a skill that does not exist, change nothing here.
      await store.recordUses("b", [{ name: "s", version: 1, calls: 9 }], "theirs");
      await store.recordUses("a", [{ name: "gone", version: 1, calls: 9 }]);
      const [listed] = await store.list("a");
      expect(listed).toMatchObject({ uses: 3, lastError: { message: "Error: boom", version: 1 } });
      expect(await store.list("b")).toEqual([]);
      // Deleting the skill drops its counts: a new skill of that name starts from zero.
      await store.delete("a", "s");
      await store.save("a", draft(), LIMITS);
      expect((await store.list("a"))[0]).toMatchObject({ uses: 0 });
      expect((await store.list("a"))[0]?.lastError).toBeUndefined();
    });
  });

  it("adds a count told late to no skill saved again under its name since", async () => {
    // The product writes a run's counts once its answer is out (durable-skill-store.ts): a
    // client may delete the skill and save a new one of that name before they land.
    await inObject(async (store) => {
      await store.save("a", draft(), LIMITS);
      await store.delete("a", "s");
      expect((await store.save("a", draft(), LIMITS)).version).toBe(2);
      await store.recordUses("a", [{ name: "s", version: 1, calls: 3 }], "the old skill's");
      expect((await store.list("a"))[0]).toMatchObject({ uses: 0 });
      expect((await store.list("a"))[0]?.lastError).toBeUndefined();
      // A version still kept (an update since, not a new skill) is counted.
      await store.save("a", draft(), LIMITS);
      await store.recordUses("a", [{ name: "s", version: 2, calls: 1 }], "v2's");
      expect((await store.list("a"))[0]).toMatchObject({
        version: 3,
        uses: 1,
        lastError: { message: "v2's", version: 2 },
      });
    });
  });

  it("keeps the error of the run that ended last, whatever order the counts land in", async () => {
    await inObject(async (store) => {
      await store.save("a", draft(), LIMITS);
      const use = [{ name: "s", version: 1, calls: 1 }];
      await store.recordUses("a", use, "the later run's", 5_000_000);
      await store.recordUses("a", use, "the earlier run's", 4_000_000);
      expect((await store.list("a"))[0]).toMatchObject({
        uses: 2,
        lastError: { message: "the later run's", at: 5_000_000 },
      });
      // Without a time, the store's clock (the contract clock: 1,000 and up) is the run's end.
      await store.recordUses("a", use, "no time");
      expect((await store.list("a"))[0]?.lastError?.message).toBe("the later run's");
    });
  });

  it("keeps skills across store instances over the same database", async () => {
    await inObject(async (store, sql) => {
      await store.save("a", draft(), LIMITS);
      expect((await new SqlSkillStore(sql).get("a", "s"))?.code).toBe("async () => 1");
    });
  });
});
