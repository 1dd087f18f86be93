// executeWithSkills (src/codemode/skills/skill-run.ts): the one place a run with skills is decided,
// for both servers' tools. A program without skills runs as sent; one whose skills hold too much
// code is answered with the refusal and never reaches the executor; otherwise the skills'
// namespace, extension and prelude join the tool's own.
import { describe, expect, it } from "vitest";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { skillLimits } from "../../../../src/codemode/skills/skill-limits";
import { executeWithSkills, SkillRun } from "../../../../src/codemode/skills/skill-run";
import { emptyCounters } from "../../../../src/executor/run-start";
import type { ExecuteRequest, ExecutionOutcome } from "../../../../src/executor/types";

const OK: ExecutionOutcome = { ...emptyCounters(), status: "ok", result: 1, durationMs: 1 };

/** An executor that keeps the requests it is sent and answers each with {@link OK}. */
function recordingExecutor() {
  const sent: ExecuteRequest[] = [];
  return {
    sent,
    execute: (request: ExecuteRequest) => (sent.push(request), Promise.resolve(OK)),
  };
}

const request = {
  code: "async () => skills.twice({ n: 2 })",
  namespaces: { codemode: { search: () => 1 } },
  extensions: [{ name: "request" as const, data: "" }],
};

/** The skills of a run of `request.code` for owner "a", with skill `twice` saved. */
async function skillsOf(maxRunCodeChars?: number) {
  const store = new MemorySkillStore();
  const limits = skillLimits(maxRunCodeChars === undefined ? {} : { maxRunCodeChars });
  await store.save(
    "a",
    {
      name: "twice",
      description: "Doubles n.",
      input: { type: "object" },
      code: "async ({ n }) => n * 2",
    },
    limits,
  );
  return SkillRun.open({ store, owner: "a", limits, tool: "code" }, request.code);
}

describe("executeWithSkills", () => {
  it("runs the request as sent when the run has no skills", async () => {
    const executor = recordingExecutor();
    expect(await executeWithSkills(executor, request, undefined)).toBe(OK);
    expect(executor.sent).toEqual([request]);
  });

  it("answers the refusal without running anything when the skills hold too much code", async () => {
    const executor = recordingExecutor();
    const outcome = await executeWithSkills(executor, request, await skillsOf(5));
    expect(outcome).toMatchObject({
      status: "error",
      error: { name: "CodeModeError", message: expect.stringContaining("maxRunCodeChars") },
    });
    expect(executor.sent).toEqual([]);
  });

  it("adds the skills' namespace, extension and prelude after the tool's own", async () => {
    const executor = recordingExecutor();
    expect(await executeWithSkills(executor, request, await skillsOf())).toBe(OK);
    expect(executor.sent).toHaveLength(1);
    const [sent] = executor.sent;
    expect(sent?.code).toBe(request.code);
    expect(Object.keys(sent?.namespaces ?? {})).toEqual(["codemode", "skills"]);
    expect(sent?.namespaces?.["codemode"]).toBe(request.namespaces.codemode);
    expect(sent?.extensions?.map((e) => e.name)).toEqual(["request", "skills"]);
    expect(sent?.prelude).toContain("twice");
  });
});
