// codeMcpServer with several upstreams: prefixed names, routing, refused ambiguous configuration.
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { CodeModeError, createMcpHandler } from "../../../../src/index";
import { BLOCKED_TASKS, v1Upstream, v2Upstream } from "../fixtures";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  function people(): McpServer {
    const server = new McpServer({ name: "people", version: "1.0.0" });
    server.registerTool(
      "owner_of",
      { description: "Who owns a project.", inputSchema: z.object({ projectId: z.string() }) },
      async ({ projectId }) => ({
        content: [
          {
            type: "text",
            text: JSON.stringify({ projectId, owner: projectId === "p1" ? "ana" : "bo" }),
          },
        ],
      }),
    );
    // Same tool name as the projects server: the prefixes keep them apart.
    server.registerTool("list_projects", {}, async () => ({
      content: [{ type: "text", text: '"people projects"' }],
    }));
    return server;
  }

  describe("codeMcpServer with several upstreams", () => {
    it("prefixes tool names with the upstream's name and routes each call to its server", async () => {
      const factory = codeMcpServer({
        upstreams: {
          projects: v2Upstream(),
          people: { url: "http://people.local/mcp", fetch: direct(createMcpHandler(people)) },
          legacy: v1Upstream(),
        },
        executor,
      });
      const client = await connect(createMcpHandler(factory));
      const [tool] = (await client.listTools()).tools;
      expect(tool!.description).toContain("projects, people, legacy");
      const program = `async () => {
      const { projects } = await codemode.projects_list_projects({ status: "active" });
      const out = [];
      for (const p of projects) {
        const { tasks } = await codemode.legacy_list_tasks({ projectId: p.id });
        const { owner } = await codemode.people_owner_of({ projectId: p.id });
        for (const t of tasks.filter((t) => t.status === "blocked")) out.push({ project: p.name, task: t.title, owner });
      }
      return { out, other: await codemode.people_list_projects() };
    }`;
      const result = await client.callTool({ name: "code", arguments: { code: program } });
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({
        out: BLOCKED_TASKS.map((b, i) => ({ ...b, owner: i === 0 ? "ana" : "bo" })),
        other: "people projects",
      });
      const described = await client.callTool({
        name: "code",
        arguments: { code: 'return await codemode.describe("people_owner_of")' },
      });
      expect(text(described)).toContain("people_owner_of(input: PeopleOwnerOfInput)");
    });

    it("keeps plain tool names when one named upstream is given", async () => {
      const client = await connect(
        createMcpHandler(codeMcpServer({ upstreams: { projects: v2Upstream() }, executor })),
      );
      const result = await client.callTool({
        name: "code",
        arguments: { code: "return (await codemode.list_projects({})).projects.length" },
      });
      expect(text(result)).toBe("3");
    });

    it("refuses ambiguous or invalid upstream configuration with a clear error", () => {
      expect(() => codeMcpServer({ executor } as never)).toThrow(/exactly one of `upstream`/);
      expect(() =>
        codeMcpServer({ upstream: v2Upstream(), upstreams: { a: v2Upstream() }, executor }),
      ).toThrow(CodeModeError);
      expect(() => codeMcpServer({ upstreams: {}, executor })).toThrow(/`upstreams` is empty/);
      expect(() => codeMcpServer({ upstreams: { "my-server": v2Upstream() }, executor })).toThrow(
        /must be an identifier/,
      );
    });
  });
});
