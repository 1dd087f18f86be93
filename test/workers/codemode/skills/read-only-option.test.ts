// The `skills.readOnly` option (src/codemode/skills/resolved-skills.ts): a library user (a
// project made by `code-mode-mcp init`) ships operator skills as Agent Skills folders, bundled at
// build time; every caller calls them, none saves over them; with no store they are the only
// skills, and a bad folder fails when the server is created, naming it.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { MemorySkillStore } from "../../../../src/codemode/skills/memory-skill-store";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { NOTES_SPEC } from "../../../helpers/specs/notes-spec";
import { McpServer } from "@modelcontextprotocol/server";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

/** What `code-mode-mcp skills pack` writes for a folder holding `double/`. */
const PACKED = [
  {
    folder: "double",
    files: {
      "SKILL.md": `---
name: double
description: "Doubles n."
---

# double

## Input schema

\`\`\`json
{ "type": "object", "properties": { "n": { "type": "number" } }, "required": ["n"] }
\`\`\`
`,
      "scripts/double.js": "async ({ n }) => n * 2",
    },
  },
];

type Result = { isError?: boolean; content: { text: string }[] };

const upstream = () => {
  const server = new McpServer({ name: "empty", version: "1.0.0" });
  server.registerTool("ping", { description: "Answers pong" }, () => ({
    content: [{ type: "text", text: "pong" }],
  }));
  return server;
};

describe("skills.readOnly (operator skills in the library)", () => {
  it("with no store: every caller calls them, a save is refused, the description lists them", async () => {
    const handler = createMcpHandler(
      openApiMcpServer({
        spec: NOTES_SPEC,
        executor,
        request: () => Response.json({}),
        skills: { readOnly: PACKED },
      }),
    );
    const client = await connect((input, init) => handler.fetch(new Request(input, init)));
    const execute = (code: string) =>
      client.callTool({ name: "execute", arguments: { code } }) as Promise<Result>;
    const [, tool] = (await client.listTools()).tools;
    expect(tool!.description).toContain("- double: Doubles n.");
    expect((await execute("async () => skills.double({ n: 21 })")).content[0]!.text).toBe("42");
    const refusedInput = await execute("async () => skills.double({ n: 'x' })");
    expect(refusedInput.content[0]!.text).toMatch(/skills\.double\(\) got invalid input/);
    const saved = await execute(
      `async () => { await skills.save({ name: "mine", description: "d", input: { type: "object" }, run: async () => 1 }); return 1; }`,
    );
    expect(saved.content.at(-1)!.text).toBe(
      'Skill "mine" was not saved: This server keeps no saved skills: it ships only the operator\'s read-only skills (its skills option has no store). Call those; to keep your own, the server needs a skills store.',
    );
    const over = await execute(
      `async () => skills.save({ name: "double", description: "d", input: { type: "object" }, run: async () => 1 })`,
    );
    expect(over.isError).toBe(true);
    expect(over.content[0]!.text).toMatch(
      /read-only skill the operator ships .* cannot be overwritten/,
    );
    await client.close();
  });

  it("with a store: beside each owner's own, for every owner, never saved over", async () => {
    const handler = createMcpHandler(
      codeMcpServer({
        upstream: upstream(),
        executor,
        skills: {
          store: new MemorySkillStore(),
          owner: (authInfo) => authInfo?.clientId,
          readOnly: PACKED,
        },
      }),
    );
    for (const user of ["ana", "bob"]) {
      const authInfo: AuthInfo = { token: `t-${user}`, clientId: user, scopes: [] };
      const client = await connect((input, init) =>
        handler.fetch(new Request(input, init), { authInfo }),
      );
      const code = (program: string) =>
        client.callTool({ name: "code", arguments: { code: program } }) as Promise<Result>;
      expect((await code("async () => skills.double({ n: 4 })")).content[0]!.text).toBe("8");
      const saved = await code(
        `async () => { await skills.save({ name: "${user}Own", description: "d", input: { type: "object" }, run: async () => "${user}" }); return 1; }`,
      );
      expect(saved.content.at(-1)!.text).toMatch(/Saved skill "\w+Own" as version 1/);
      const listed = (await code("async () => skills.declarations()")).content[0]!.text;
      expect(listed).toContain("double(input");
      expect(listed).toContain(`${user}Own(input`);
      expect(listed).not.toContain(`${user === "ana" ? "bob" : "ana"}Own(input`);
      await client.close();
    }
  });

  it("a bad folder, two of one name, or a store without an owner fail when the server is created", () => {
    const broken = [{ folder: "double", files: { "SKILL.md": "no front matter" } }];
    const make = (skills: Parameters<typeof codeMcpServer>[0]["skills"]) => () =>
      codeMcpServer({ upstream: upstream(), executor, skills });
    expect(make({ readOnly: broken })).toThrow(/Skill folder "double": SKILL.md does not start/);
    expect(make({ readOnly: [...PACKED, ...PACKED] })).toThrow(
      'skills.readOnly ships two skills named "double" (the second in folder "double"): keep one.',
    );
    expect(
      make({ readOnly: [{ name: "x", description: "d", input: {}, code: "async () => y" }] }),
    ).toThrow(/^skills\.readOnly\[0\]: Skill "x" uses `y`/);
    expect(make({ store: new MemorySkillStore() })).toThrow(/skills\.owner is missing/);
    // No store and nothing shipped: skills are off (the description keeps its whole budget).
    expect(make({ readOnly: [] })).not.toThrow();
  });
});
