// Skills through codeMcpServer's `skills` option with real MCP clients: a client saves a skill
// from a successful run, a new client's description lists it and its program calls it, and
// another user neither sees nor calls it (src/codemode/code-mcp-server.ts, src/codemode/skills/).
import type { AuthInfo } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import type { RunRecord } from "../../../../src/codemode/runs/run-record";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { v2Upstream } from "../fixtures";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

const SAVE = `async () => {
  const blockedIn = async ({ status }) => {
    const { projects } = await codemode.list_projects({ status });
    const out = [];
    for (const p of projects) {
      const { tasks } = await codemode.list_tasks({ projectId: p.id });
      out.push(...tasks.filter((t) => t.status === "blocked").map((t) => t.title));
    }
    return out;
  };
  const answer = await blockedIn({ status: "active" });
  await skills.save({
    name: "blockedIn",
    description: "Titles of blocked tasks in projects of a status.",
    input: { type: "object", properties: { status: { enum: ["active", "archived"] } }, required: ["status"] },
    run: blockedIn,
  });
  return answer;
}`;

describe("codeMcpServer with skills", () => {
  const store = new MemorySkillStore();
  const records: RunRecord[] = [];
  const handler = createMcpHandler(
    codeMcpServer({
      upstream: v2Upstream(),
      executor,
      skills: { store, owner: (authInfo) => authInfo?.clientId },
      onRun: (record) => void records.push(record),
    }),
  );
  /** A new client connection as `user`. */
  const clientOf = (user: string) => {
    const authInfo: AuthInfo = { token: `token-${user}`, clientId: user, scopes: [] };
    return connect((input, init) => handler.fetch(new Request(input, init), { authInfo }));
  };
  const call = async (client: Awaited<ReturnType<typeof clientOf>>, code: string) =>
    (await client.callTool({ name: "code", arguments: { code } })) as {
      isError?: boolean;
      content: { text: string }[];
    };

  it("saves from one connection; a new connection lists and calls it; another user cannot", async () => {
    const first = await clientOf("alice");
    const saved = await call(first, SAVE);
    expect(saved.isError).toBeFalsy();
    expect(saved.content.map((c) => c.text)).toEqual([
      JSON.stringify(["Fix login", "Push notifications"]),
      'Saved skill "blockedIn" as version 1: later programs call it as skills.blockedIn(input).',
    ]);
    await first.close();

    const again = await clientOf("alice");
    const [tool] = (await again.listTools()).tools;
    expect(tool!.description).toContain(
      "- blockedIn: Titles of blocked tasks in projects of a status.",
    );
    expect(tool!.description!.length).toBeLessThanOrEqual(2_048);
    const called = await call(again, "async () => skills.blockedIn({ status: 'archived' })");
    expect(called.content[0]!.text).toBe(JSON.stringify(["Old thing"]));
    expect(records.at(-1)?.skills).toEqual([{ name: "blockedIn", version: 1, calls: 1 }]);
    const refused = await call(again, "async () => skills.blockedIn({ status: 'gone' })");
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(
      /^ERROR: TypeError: skills\.blockedIn\(\) got invalid input: input\/status: .*The skill did not run\./,
    );
    await again.close();

    const bob = await clientOf("bob");
    const [bobTool] = (await bob.listTools()).tools;
    expect(bobTool!.description).not.toContain("blockedIn");
    const denied = await call(bob, "async () => skills.blockedIn({ status: 'active' })");
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toMatch(/skills\.blockedIn is not a function/);
    await bob.close();
  });

  it("runs the current version after a roll back, and the record names it", async () => {
    const client = await clientOf("carol");
    const save = (n: number) =>
      call(
        client,
        `async () => { const v = async () => ${n}; await v(); await skills.save({ name: "which", description: "Says its version.", input: {}, run: v }); }`,
      );
    expect((await save(1)).content[1]!.text).toMatch(/as version 1/);
    expect((await save(2)).content[1]!.text).toMatch(/as version 2/);
    expect((await call(client, "async () => skills.which({})")).content[0]!.text).toBe("2");
    await store.rollBack("carol", "which", 1);
    expect((await call(client, "async () => skills.which({})")).content[0]!.text).toBe("1");
    expect(records.at(-1)?.skills).toEqual([{ name: "which", version: 1, calls: 1 }]);
    await client.close();
  });
});

describe("codeMcpServer with skills: the code one run loads", () => {
  it("runs at maxRunCodeChars and answers a run one skill past it with the refusal", async () => {
    const store = new MemorySkillStore();
    const limits = { maxSkills: 10, maxVersions: 2 };
    // Each skill's code is 15 characters: two are 30, the limit; three are 45.
    for (const name of ["a", "b", "c"])
      await store.save(
        "dan",
        { name, description: "d", input: {}, code: `async () => "${name}"` },
        limits,
      );
    const records: RunRecord[] = [];
    const handler = createMcpHandler(
      codeMcpServer({
        upstream: v2Upstream(),
        executor,
        skills: { store, owner: () => "dan", limits: { maxRunCodeChars: 30 } },
        onRun: (record) => void records.push(record),
      }),
    );
    const client = await connect((input, init) => handler.fetch(new Request(input, init)));
    const call = async (code: string) =>
      (await client.callTool({ name: "code", arguments: { code } })) as {
        isError?: boolean;
        content: { text: string }[];
      };

    const two = await call("async () => [await skills.a({}), await skills.b({})]");
    expect(two.isError).toBeFalsy();
    expect(two.content[0]!.text).toBe(JSON.stringify(["a", "b"]));

    const three = await call(
      "async () => [await skills.a({}), await skills.b({}), await skills.c({})]",
    );
    expect(three.isError).toBe(true);
    expect(three.content[0]!.text).toBe(
      "ERROR: CodeModeError: The 3 skills this run calls (with the skills they call) hold 45 characters of code; the limit is 30 (maxRunCodeChars; setting SKILLS_MAX_RUN_CODE_CHARS). Call fewer skills in one run: split the work over several runs, passing results between them.",
    );
    // The refused run is recorded as an error and called no skill.
    expect(records.at(-1)?.outcome).toBe("error");
    expect(records.at(-1)?.error?.message).toContain("maxRunCodeChars");
    expect(records.at(-1)?.skills ?? []).toEqual([]);
    await client.close();
  });
});
