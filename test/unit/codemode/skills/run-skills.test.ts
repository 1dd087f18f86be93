// What a run reads of its owner's skills before it starts (src/codemode/skills/run-skills.ts):
// in one step from a store that answers it (the product's Durable Object: one round trip, where
// a listing and then a read per level of calls took two or more), checked again on the host,
// and through the operator's read-only skills.
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { withReadOnlySkills } from "../../../../src/codemode/skills/read-only-skills";
import { loadRunSkills, readRunSkills } from "../../../../src/codemode/skills/run-skills";
import { skillLimits } from "../../../../src/codemode/skills/skill-limits";
import { SkillRun } from "../../../../src/codemode/skills/skill-run";
import type { SkillDraft, SkillStore } from "../../../../src/codemode/skills/skill-store";

const limits = skillLimits();
const draft = (name: string, code = "async () => 1"): SkillDraft => ({
  name,
  description: `${name} does it.`,
  input: { type: "object" },
  code,
});

/** A store over `inner` that counts each method called (and may refuse list and get). */
function counting(inner: SkillStore, refuseReads = false) {
  const calls: string[] = [];
  const refuse = () => Promise.reject(new Error("read one by one"));
  // The inner store's other methods through the prototype; these three counted.
  const store: SkillStore = Object.assign(Object.create(inner) as SkillStore, {
    list: (owner: string) => (calls.push("list"), refuseReads ? refuse() : inner.list(owner)),
    get: (owner: string, name: string, version?: number) => (
      calls.push(`get ${name}`),
      refuseReads ? refuse() : inner.get(owner, name, version)
    ),
    runSkills: (owner: string, names: readonly string[]) => (
      calls.push("runSkills"),
      inner.runSkills!(owner, names)
    ),
  });
  return { store, calls };
}

const names = (skills: readonly { name: string }[]) => skills.map((s) => s.name).toSorted();

describe("loadRunSkills", () => {
  it("reads only listed names, each once, however many names the program writes", async () => {
    const inner = new MemorySkillStore();
    await inner.save("a", draft("one", "async () => skills.two(1) + skills.one(1)"), limits);
    await inner.save("a", draft("two", "async () => skills.one(2)"), limits);
    const { store, calls } = counting(inner);
    const wanted = ["one", "one", ...Array.from({ length: 50 }, (_, i) => `missing${i}`)];
    const run = await loadRunSkills(store, "a", wanted);
    expect(names(run.loaded)).toEqual(["one", "two"]);
    expect(calls).toEqual(["list", "get one", "get two"]);
  });
});

describe("readRunSkills", () => {
  it("asks a store that answers runSkills once, without a listing or reads", async () => {
    const inner = new MemorySkillStore();
    await inner.save("a", draft("one", "async () => skills.two(1)"), limits);
    await inner.save("a", draft("two"), limits);
    const { store, calls } = counting(inner, true);
    const run = await readRunSkills(store, "a", ["one"]);
    expect(names(run.loaded)).toEqual(["one", "two"]);
    expect(calls).toEqual(["runSkills"]);
  });

  it("keeps of a store's answer only listed names a save would take", async () => {
    const stored = (name: string) => ({ ...draft(name), version: 1, savedAt: 0 });
    const summary = (name: string) => ({ name, description: "d", version: 1, latest: 1 });
    const store = Object.assign(Object.create(new MemorySkillStore()) as SkillStore, {
      runSkills: () =>
        Promise.resolve({
          listed: [summary("fine"), summary("__proto__")],
          loaded: [stored("fine"), stored("fine"), stored("__proto__"), stored("unlisted")],
        }),
    });
    const run = await readRunSkills(store, "a", ["fine", "__proto__", "unlisted"]);
    expect(run.listed.map((s) => s.name)).toEqual(["fine"]);
    expect(run.loaded.map((s) => s.name)).toEqual(["fine"]);
  });
});

describe("SkillRun.open", () => {
  it("reads the owner's skills in one step when the store answers runSkills", async () => {
    const inner = new MemorySkillStore();
    await inner.save("a", draft("one", "async () => 41 + 1"), limits);
    const { store, calls } = counting(inner, true);
    const skillRun = await SkillRun.open(
      { store, owner: "a", limits, tool: "code" },
      "async () => skills.one({})",
    );
    expect(calls).toEqual(["runSkills"]);
    expect(skillRun!.request().prelude).toContain("41 + 1");
  });
});

describe("withReadOnlySkills' runSkills", () => {
  it("reads the principal store once; an operator's skill hides the owner's of its name", async () => {
    const inner = new MemorySkillStore();
    await inner.save("a", draft("shared", "async () => 'mine'"), limits);
    await inner.save("a", draft("mine", "async () => skills.shared(1)"), limits);
    const { store, calls } = counting(inner);
    const layered = withReadOnlySkills(store, [draft("shared", "async () => 'operator'")]);
    const run = await layered.runSkills!("a", ["mine"]);
    expect(calls).toEqual(["runSkills"]);
    expect(run.loaded.map((s) => [s.name, s.code]).toSorted()).toEqual([
      ["mine", "async () => skills.shared(1)"],
      ["shared", "async () => 'operator'"],
    ]);
    expect(run.listed.find((s) => s.name === "shared")?.readOnly).toBe(true);
  });

  it("reads an owner's skill that only an operator's skill calls on its own", async () => {
    const inner = new MemorySkillStore();
    await inner.save("a", draft("helper", "async () => 'help'"), limits);
    const { store, calls } = counting(inner);
    const layered = withReadOnlySkills(store, [draft("tool", "async () => skills.helper(1)")]);
    const run = await layered.runSkills!("a", ["tool"]);
    expect(names(run.loaded)).toEqual(["helper", "tool"]);
    expect(calls).toEqual(["runSkills", "get helper"]);
    // Another owner has no `helper`: the operator's skill is loaded alone.
    expect(names((await layered.runSkills!("b", ["tool"])).loaded)).toEqual(["tool"]);
  });
});
