// The in-memory SkillStore (src/codemode/skills/memory-skill-store.ts) against the store
// contract every SkillStore meets (test/helpers/skill-store-contract.ts).
import { describe, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { SKILL_STORE_CONTRACT, contractClock } from "../../../helpers/skill-store-contract";

describe("MemorySkillStore", () => {
  for (const [name, check] of Object.entries(SKILL_STORE_CONTRACT))
    it(name, () => check(new MemorySkillStore(contractClock())));
});
