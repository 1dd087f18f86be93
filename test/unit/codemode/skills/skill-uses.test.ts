// What a run's use counts hand the store (SkillRun.recordUses, withReadOnlySkills): the run's end
// time, so a store told late keeps the error of the run that ended last, and nothing for a run
// that called only the operator's skills.
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { withReadOnlySkills } from "../../../../src/codemode/skills/read-only-skills";
import { skillLimits } from "../../../../src/codemode/skills/skill-limits";
import { SkillRun } from "../../../../src/codemode/skills/skill-run";
import type { SkillDraft, SkillStore } from "../../../../src/codemode/skills/skill-store";
import type { HostCallContext } from "../../../../src/executor/types";

const limits = skillLimits();
const draft = (name: string, code = "async () => 1"): SkillDraft => ({
  name,
  description: `${name} does it.`,
  input: { type: "object" },
  code,
});
const context = {
  namespace: "skills",
  name: "$call",
  signal: new AbortController().signal,
} as HostCallContext;

/** A memory store that keeps what `recordUses` was told. */
function recording() {
  const told: unknown[][] = [];
  const store: SkillStore = Object.assign(Object.create(new MemorySkillStore()) as SkillStore, {
    recordUses: (...args: unknown[]) => (told.push(args), Promise.resolve()),
  });
  return { store, told };
}

/** Opens a run of `code` over `store` for owner "a" and calls the skills named, once each. */
async function runCalling(store: SkillStore, code: string, called: string[]) {
  const run = (await SkillRun.open({ store, owner: "a", limits, tool: "code" }, code))!;
  const { $call } = run.request().namespaces.skills;
  for (const name of called) await $call!([name, {}], context);
  return run;
}

describe("a run's use counts", () => {
  it("tell the store when the run ended", async () => {
    const { store, told } = recording();
    await store.save("a", draft("one"), limits);
    const run = await runCalling(store, "async () => skills.one({})", ["one"]);
    await run.recordUses("Error: boom");
    expect(told).toEqual([
      ["a", [{ name: "one", version: 1, calls: 1 }], "Error: boom", expect.any(Number)],
    ]);
  });

  it("ask nothing of the store when only the operator's skills ran", async () => {
    const { store, told } = recording();
    await store.save("a", draft("mine"), limits);
    const layered = withReadOnlySkills(store, [draft("shipped")]);
    const code = "async () => skills.shipped({}) + skills.mine({})";
    await (await runCalling(layered, code, ["shipped"])).recordUses();
    expect(told).toEqual([]);
    // The owner's own skill is still counted, without the operator's.
    await (await runCalling(layered, code, ["shipped", "mine"])).recordUses(undefined);
    expect(told).toEqual([
      ["a", [{ name: "mine", version: 1, calls: 1 }], undefined, expect.any(Number)],
    ]);
  });
});
