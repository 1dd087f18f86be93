// codeMcpServer: the contract's example, the code tool description, errors inside code and results.
import { LOG_LEVEL_META_KEY, McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../src/index";
import { BLOCKED_TASKS, BLOCKED_TASKS_PROGRAM, v1Upstream, v2Upstream } from "./fixtures";
import { connect, direct } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  async function codeClient(
    upstream: CodeMcpServerOptions["upstream"],
    extra: Partial<CodeMcpServerOptions> = {},
  ) {
    return connect(createMcpHandler(codeMcpServer({ upstream, executor, ...extra })));
  }

  async function run(client: Awaited<ReturnType<typeof connect>>, code: string) {
    return client.callTool({ name: "code", arguments: { code } });
  }

  describe("codeMcpServer runs the contract's example", () => {
    it.each([
      ["an SDK v2 server instance", () => v2Upstream()],
      ["an SDK v1 server instance", () => v1Upstream()],
      ["a server factory", () => ({ server: v2Upstream })],
      [
        "a remote server over HTTP",
        () => ({
          url: "http://upstream.local/mcp",
          headers: { authorization: "Bearer secret-upstream-token" },
          fetch: direct(createMcpHandler(v2Upstream)),
        }),
      ],
    ])("against %s", async (_label, upstream) => {
      const client = await codeClient(upstream() as CodeMcpServerOptions["upstream"]);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["code"]);
      expect(tools[0]!.description).not.toContain("secret-upstream-token");
      const result = await run(client, BLOCKED_TASKS_PROGRAM);
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual(BLOCKED_TASKS);
      expect(text(result)).not.toContain("secret-upstream-token");
      await client.close();
    });
  });

  describe("the code tool description", () => {
    it("inlines real input and output types when they fit", async () => {
      const client = await codeClient(v2Upstream());
      const [tool] = (await client.listTools()).tools;
      expect(tool!.description!.length).toBeLessThanOrEqual(2_048);
      expect(tool!.description).toContain(
        "list_projects(input?: ListProjectsInput): Promise<ListProjectsOutput>;",
      );
      expect(tool!.description).toContain('status?: "active" | "archived"');
      expect(tool!.description).toContain("List the tasks of one project.");
    });
  });

  describe("errors inside code", () => {
    it("turns an upstream isError result into an exception the code can catch", async () => {
      const client = await codeClient(v2Upstream());
      const caught = await run(
        client,
        "try { await codemode.fail({}) } catch (e) { return `${e.name}: ${e.message}` }",
      );
      expect(text(caught)).toBe("UpstreamToolError: fail failed: database unavailable");
      const uncaught = await run(client, "await codemode.fail({})");
      expect(uncaught.isError).toBe(true);
      expect(text(uncaught)).toMatch(
        /^ERROR: UpstreamToolError: fail failed: database unavailable \(line 1/,
      );
    });
    it("refuses invalid arguments before the upstream sees them", async () => {
      let calls = 0;
      const server = new McpServer({ name: "counted", version: "1.0.0" });
      server.registerTool(
        "get_task",
        { inputSchema: z.object({ id: z.string(), limit: z.number().int().optional() }) },
        async () => {
          calls++;
          return { content: [{ type: "text", text: "{}" }] };
        },
      );
      const client = await codeClient(server);
      const result = await run(
        client,
        "try { await codemode.get_task({ id: 7 }) } catch (e) { return e.message }",
      );
      expect(text(result)).toMatch(/codemode\.get_task\(\) got invalid input: input\/id: .*string/);
      // One sentence end, not two (the validator's messages end with a period of their own).
      expect(text(result)).not.toContain("..");
      expect(calls).toBe(0);
      await run(client, "return await codemode.get_task({ id: '7' })");
      expect(calls).toBe(1);
    });
    it("gives unknown tools a clear error", async () => {
      const client = await codeClient(v2Upstream());
      const result = await run(client, "await codemode.list_everything()");
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/codemode\.list_everything is not a function/);
    });
  });

  describe("results", () => {
    it("passes images and resources through as content blocks", async () => {
      const server = new McpServer({ name: "media", version: "1.0.0" });
      server.registerTool("logo", {}, async () => ({
        content: [
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          {
            type: "resource",
            resource: { uri: "file:///logo.txt", text: "a logo", mimeType: "text/plain" },
          },
        ],
      }));
      const client = await codeClient(server);
      const result = await run(
        client,
        "const blocks = await codemode.logo(); return blocks.map((b) => [b.type, b.mimeType ?? b.resource.mimeType])",
      );
      expect(JSON.parse(text(result))).toEqual([
        ["image", "image/png"],
        ["resource", "text/plain"],
      ]);
    });
    it("keeps the outer result valid JSON under truncation and includes logs", async () => {
      const client = await codeClient(v2Upstream(), { limits: { maxResultBytes: 2_000 } });
      const result = await run(
        client,
        "console.log('fetching'); const rows = []; for (let i = 0; i < 1000; i++) rows.push({ i, name: 'row ' + i }); return rows",
      );
      const [json, note, logs] = text(result).split("\n\n");
      expect(JSON.parse(json!).at(-1)).toMatch(/^…\[\+\d+ items\]$/);
      expect(note).toMatch(/truncated/);
      expect(logs).toBe("Console output:\nfetching");
    });
  });

  describe("upstream tool list", () => {
    it("is cached per isolate and refreshed on notifications/tools/list_changed", async () => {
      const upstream = v2Upstream();
      const factory = codeMcpServer({ upstream, executor });
      const handler = createMcpHandler(factory);
      const before = await connect(handler);
      expect((await before.listTools()).tools[0]!.description).not.toContain("new_tool");
      upstream.registerTool("new_tool", { description: "Added later." }, async () => ({
        content: [{ type: "text", text: '"new"' }],
      }));
      await new Promise((r) => setTimeout(r, 50));
      const after = await connect(handler);
      expect((await after.listTools()).tools[0]!.description).toContain("new_tool");
      expect(text(await run(after, "return await codemode.new_tool()"))).toBe("new");
    });
  });

  describe("notifications during a run", () => {
    it("forwards upstream progress to a client that asked for it", async () => {
      const server = () => {
        const s = new McpServer({ name: "slow", version: "1.0.0" });
        s.registerTool("work", {}, async (ctx) => {
          const token = ctx.mcpReq._meta?.progressToken;
          if (token !== undefined) {
            for (let i = 1; i <= 3; i++)
              await ctx.mcpReq.notify({
                method: "notifications/progress",
                params: { progressToken: token, progress: i, total: 3 },
              });
          }
          return { content: [{ type: "text", text: '"done"' }] };
        });
        return s;
      };
      const client = await codeClient({ server });
      const seen: number[] = [];
      const result = await client.callTool(
        { name: "code", arguments: { code: "return await codemode.work()" } },
        { onprogress: (p) => seen.push(p.progress) },
      );
      expect(text(result)).toBe("done");
      expect(seen).toEqual([1, 2, 3]);
    });
  });

  describe("logging during a run", () => {
    it("forwards upstream log messages of a per-run connection to the client", async () => {
      const server = () => {
        const s = new McpServer(
          { name: "chatty", version: "1.0.0" },
          { capabilities: { logging: {} } },
        );
        s.registerTool("work", {}, async (ctx) => {
          await ctx.mcpReq.log("info", "upstream is working");
          return { content: [{ type: "text", text: '"done"' }] };
        });
        return s;
      };
      const client = await codeClient({ server });
      const messages: unknown[] = [];
      client.setNotificationHandler(
        "notifications/message",
        (n) => void messages.push(n.params.data),
      );
      // 2026-07-28: the client asks for log messages per request, in _meta.
      const quiet = await client.callTool({
        name: "code",
        arguments: { code: "return await codemode.work()" },
      });
      expect(text(quiet)).toBe("done");
      expect(messages).toEqual([]);
      const result = await client.callTool({
        name: "code",
        arguments: { code: "return await codemode.work()" },
        _meta: { [LOG_LEVEL_META_KEY]: "info" },
      });
      expect(text(result)).toBe("done");
      expect(messages).toContain("upstream is working");
    });
  });
});
