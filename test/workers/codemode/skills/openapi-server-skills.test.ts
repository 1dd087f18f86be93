// Skills in openApiMcpServer's `execute` with a real MCP client: a program saves a function
// that sends a request, a new connection's program calls it, and the description says how
// (src/codemode/openapi-mcp-server.ts, src/codemode/skills/).
import type { AuthInfo } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import type { SkillStore, StoredSkill } from "../../../../src/codemode/skills/skill-store";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { NOTES_SPEC } from "../../../helpers/specs/notes-spec";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

describe("openApiMcpServer with skills", () => {
  const store = new MemorySkillStore();
  const sent: string[] = [];
  const handler = createMcpHandler(
    openApiMcpServer({
      spec: NOTES_SPEC,
      executor,
      request: (req) => {
        sent.push(`${req.method} ${req.path}`);
        return Response.json(
          { id: "n1", text: (req.body as { text: string }).text },
          { status: 201 },
        );
      },
      skills: { store, owner: (authInfo) => authInfo?.clientId },
    }),
  );
  const clientOf = (user: string) => {
    const authInfo: AuthInfo = { token: `token-${user}`, clientId: user, scopes: [] };
    return connect((input, init) => handler.fetch(new Request(input, init), { authInfo }));
  };
  const execute = async (client: Awaited<ReturnType<typeof clientOf>>, code: string) =>
    (await client.callTool({ name: "execute", arguments: { code } })) as {
      isError?: boolean;
      content: { text: string }[];
    };

  it("saves a skill in execute; a new connection calls it with the caller's request function", async () => {
    const first = await clientOf("alice");
    const [, tool] = (await first.listTools()).tools;
    expect(tool!.description).toContain("await skills.save({ name, description, input");
    const saved = await execute(
      first,
      `async () => {
        const note = async ({ text }) => (await codemode.request({ method: "POST", path: "/notes", body: { text } })).id;
        const id = await note({ text: "first" });
        await skills.save({ name: "note", description: "Creates a note; returns its id.", input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, run: note });
        return id;
      }`,
    );
    expect(saved.content.map((c) => c.text)).toEqual([
      "n1",
      'Saved skill "note" as version 1: later programs call it as skills.note(input).',
    ]);
    await first.close();

    const second = await clientOf("alice");
    const called = await execute(second, "async () => skills.note({ text: 'again' })");
    expect(called.content[0]!.text).toBe("n1");
    expect(sent).toEqual(["POST /notes", "POST /notes"]);
    const refused = await execute(second, "async () => skills.note({})");
    expect(refused.content[0]!.text).toMatch(
      /^ERROR: TypeError: skills\.note\(\) got invalid input/,
    );
    expect(sent).toHaveLength(2);
    await second.close();
  });
});

describe("openApiMcpServer with skills: the code one run loads", () => {
  it("answers an execute run whose skills hold more than maxRunCodeChars with the refusal", async () => {
    const store = new MemorySkillStore();
    const limits = { maxSkills: 10, maxVersions: 2 };
    // Each skill's code is 15 characters: two are 30, one past the limit of 29.
    for (const name of ["a", "b"])
      await store.save(
        "erin",
        { name, description: "d", input: {}, code: `async () => "${name}"` },
        limits,
      );
    const handler = createMcpHandler(
      openApiMcpServer({
        spec: NOTES_SPEC,
        executor,
        request: () => Response.json({}),
        skills: { store, owner: () => "erin", limits: { maxRunCodeChars: 29 } },
      }),
    );
    const client = await connect((input, init) => handler.fetch(new Request(input, init)));
    const execute = async (code: string) =>
      (await client.callTool({ name: "execute", arguments: { code } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
    const one = await execute("async () => skills.a({})");
    expect(one.content[0]!.text).toBe("a");
    const two = await execute("async () => [await skills.a({}), await skills.b({})]");
    expect(two.isError).toBe(true);
    expect(two.content[0]!.text).toMatch(
      /^ERROR: CodeModeError: The 2 skills this run calls \(with the skills they call\) hold 30 characters of code; the limit is 29 \(maxRunCodeChars; setting SKILLS_MAX_RUN_CODE_CHARS\)\. Call fewer skills in one run/,
    );
    await client.close();
  });
});

describe("openApiMcpServer with skills: what a search reads", () => {
  it("loads no skill's code, however large: the listing, then signatures for declarations()", async () => {
    const memory = new MemorySkillStore();
    const limits = { maxSkills: 10, maxVersions: 2 };
    // Larger than any save would take (a store a library user fills, or a limit lowered since).
    const huge = `async () => ${JSON.stringify("x".repeat(4_000_000))}`;
    await memory.save(
      "finn",
      { name: "huge", description: "A very large skill.", input: { type: "object" }, code: huge },
      limits,
    );
    // Every character of code the store hands out, by any method.
    let codeRead = 0;
    const counted = (skill: StoredSkill | undefined) => (
      (codeRead += skill?.code.length ?? 0),
      skill
    );
    const store: SkillStore = {
      list: (owner) => memory.list(owner),
      get: async (owner, name, version) => counted(await memory.get(owner, name, version)),
      versions: (owner, name) => memory.versions(owner, name),
      save: (owner, draft, l) => memory.save(owner, draft, l),
      delete: (owner, name) => memory.delete(owner, name),
      rollBack: (owner, name, version) => memory.rollBack(owner, name, version),
      runSkills: async (owner, names) => {
        const answer = await memory.runSkills(owner, names);
        answer.loaded.forEach(counted);
        return answer;
      },
      signatures: (owner) => memory.signatures(owner),
    };
    const handler = createMcpHandler(
      openApiMcpServer({
        spec: NOTES_SPEC,
        executor,
        request: () => Response.json({}),
        skills: { store, owner: () => "finn" },
      }),
    );
    const client = await connect((input, init) => handler.fetch(new Request(input, init)));
    // The program names the skill as a call, so a run would load its code (and a search did).
    const searched = (await client.callTool({
      name: "search",
      arguments: {
        code: "async () => { if (false) await skills.huge({}); return await skills.declarations(); }",
      },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(searched.isError).toBeFalsy();
    expect(searched.content[0]!.text).toContain("huge");
    expect(searched.content[0]!.text).toContain("A very large skill.");
    // Before: 4,000,014 characters read (and scanned for the skills it calls) for one search.
    expect(codeRead).toBe(0);
    await client.close();
  });
});
