/**
 * `POST /api/skills/import` (src/app/skills/skills-api.ts) checks its folders one at a time and
 * lets other requests run between them: each check parses and instruments a skill's code, and
 * 100 folders of 31,000 characters held the local host's thread for every client 6-7 s in one
 * piece. Counted in turns of the event loop that other work got during one import, not in time.
 */
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../src/codemode/skills/memory-skill-store";
import { skillsApi } from "../../../src/app/skills/skills-api";

const FOLDERS = 12;

function folder(index: number) {
  const name = `turns${index}`;
  const md = `---\nname: ${name}\ndescription: "One of many."\n---\n\n# ${name}\n\n## Input schema\n\n\`\`\`json\n{ "type": "object" }\n\`\`\`\n`;
  return { folder: name, files: { "SKILL.md": md, [`scripts/${name}.js`]: "async (input) => 1" } };
}

describe("a skills import", () => {
  it("gives other requests a turn between its folders", async () => {
    const store = new MemorySkillStore();
    const skills = { store, owner: () => "open" };
    const request = new Request("http://localhost/api/skills/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ folders: Array.from({ length: FOLDERS }, (_, i) => folder(i)) }),
    });
    let turns = 0;
    // Ended from outside the loop, once the import has answered.
    const state = { importing: true };
    // Another request's work: a step on each turn of the event loop while the import is under way.
    const other = async () => {
      while (state.importing) {
        turns++;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    };
    const otherDone = other();
    const response = await skillsApi(request, skills, "open");
    state.importing = false;
    await otherDone;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { imported: unknown[] }).imported).toHaveLength(FOLDERS);
    // At least one turn between each two folders (reading the body takes a few more).
    expect(turns).toBeGreaterThanOrEqual(FOLDERS);
  });
});
