// The product's skills store over its Durable Objects (src/app/skills/durable-skill-store.ts): a
// run's use count is written once the answer is out (like the run history, runs/after-response.ts),
// so the call waits for no write and shares its way out with none.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliverThenRun } from "../../../../src/app/runs/after-response";
import { durableSkillStore } from "../../../../src/app/skills/durable-skill-store";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const limits = { maxSkills: 5, maxVersions: 3 };

describe("durableSkillStore", () => {
  it("counts a run's uses only after its response was delivered, then counts them", async () => {
    const store = durableSkillStore(env.SKILLS);
    const owner = `uses-${crypto.randomUUID()}`;
    const draft = { name: "counted", description: "d", input: {}, code: "async () => 1" };
    await store.save(owner, draft, limits);
    const uses = async () => (await store.list(owner))[0]?.uses;
    let whileAnswering: number | undefined;
    const response = await deliverThenRun(async () => {
      await store.recordUses!(owner, [{ name: "counted", version: 1, calls: 2 }]);
      whileAnswering = await uses();
      return new Response("answer");
    });
    expect(whileAnswering).toBe(0);
    await sleep(50);
    expect(await uses()).toBe(0); // the body is not read yet
    expect(await response.text()).toBe("answer");
    // Up to 10 s: a wait, not a bound (the machine running the tests is shared).
    for (let i = 0; i < 400 && (await uses()) !== 2; i++) await sleep(25);
    expect(await uses()).toBe(2);
  });

  it("hands the object the run's end as the caller gave it, not the time of the write", async () => {
    const store = durableSkillStore(env.SKILLS);
    const owner = `uses-${crypto.randomUUID()}`;
    const draft = { name: "failed", description: "d", input: {}, code: "async () => 1" };
    await store.save(owner, draft, limits);
    const lastError = async () => (await store.list(owner))[0]?.lastError;
    const use = [{ name: "failed", version: 1, calls: 1 }];
    // Outside a response: each write goes once the isolate is quiet, in whatever order.
    await store.recordUses!(owner, use, "the later run's", 5_000_000);
    await store.recordUses!(owner, use, "the earlier run's", 4_000_000);
    // Up to 10 s: a wait, not a bound (the machine running the tests is shared).
    for (let i = 0; i < 400 && (await store.list(owner))[0]?.uses !== 2; i++) await sleep(25);
    expect(await lastError()).toMatchObject({ message: "the later run's", at: 5_000_000 });
  });

  it("answers signatures from the object without the code (what skills.declarations() reads)", async () => {
    const store = durableSkillStore(env.SKILLS);
    const owner = `signatures-${crypto.randomUUID()}`;
    await store.save(
      owner,
      { name: "sig", description: "d", input: { type: "object" }, code: "async () => 1" },
      limits,
    );
    expect(await store.signatures!(owner)).toEqual([
      { name: "sig", description: "d", input: { type: "object" } },
    ]);
    // A forwarded token's owner that never saved: no object is reached, nothing is answered.
    expect(await store.signatures!(`token:${crypto.randomUUID()}`)).toEqual([]);
  });
});
