// The code tool description inlines declarations or lists a catalogue, within its bounds.
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../src/index";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  /** An upstream with `n` realistic tools (nested input, enum, optional fields, output schema). */
  function manyTools(n: number): McpServer {
    const server = new McpServer({ name: `big-${n}`, version: "1.0.0" });
    for (let i = 0; i < n; i++) {
      server.registerTool(
        `resource_${i}_update`,
        {
          description: `Update resource family ${i}: changes the settings of one item and returns the new version. Requires write access.`,
          inputSchema: z.object({
            id: z.string().describe("Item id"),
            settings: z.object({
              mode: z.enum(["fast", "safe", "off"]),
              retries: z.number().int().optional(),
              tags: z.array(z.string()).optional(),
            }),
          }),
          outputSchema: z.object({ id: z.string(), version: z.number() }),
        },
        async ({ id }) => ({
          content: [{ type: "text", text: "{}" }],
          structuredContent: { id, version: i },
        }),
      );
    }
    return server;
  }

  describe.each([5, 50, 500])("with %i upstream tools", (n) => {
    it("keeps the code tool description within 2,048 characters and makes every declaration reachable", async () => {
      const client = await connect(
        createMcpHandler(codeMcpServer({ upstream: manyTools(n), executor })),
      );
      const [tool] = (await client.listTools()).tools;
      const description = tool!.description!;
      expect(description.length).toBeLessThanOrEqual(2_048);
      expect(description).toContain(`Run JavaScript that calls the ${n} tools`);
      const last = `resource_${n - 1}_update`;
      const declared = await client.callTool({
        name: "code",
        arguments: { code: `return await codemode.describe("${last}")` },
      });
      expect(text(declared)).toContain(`${last}(input: `);
      expect(text(declared)).toContain('mode: "fast" | "safe" | "off"');
      expect(text(declared)).toMatch(/Promise<Resource_\d+UpdateOutput>/);
      const found = await client.callTool({
        name: "code",
        arguments: {
          code: `return (await codemode.search("resource ${n - 1} update")).map((h) => h.name)`,
        },
      });
      expect(JSON.parse(text(found))[0]).toBe(`codemode.${last}`);
      const called = await client.callTool({
        name: "code",
        arguments: {
          code: `return (await codemode.${last}({ id: "x", settings: { mode: "safe" } })).version`,
        },
      });
      expect(text(called)).toBe(String(n - 1));
    });
  });

  describe("inline or catalogue", () => {
    it("inlines declarations for a few tools and switches to a catalogue with discovery helpers for many", async () => {
      const small = (
        await (
          await connect(createMcpHandler(codeMcpServer({ upstream: manyTools(1), executor })))
        ).listTools()
      ).tools[0]!.description!;
      expect(small).toContain("declare const codemode");
      const big = (
        await (
          await connect(createMcpHandler(codeMcpServer({ upstream: manyTools(500), executor })))
        ).listTools()
      ).tools[0]!.description!;
      expect(big).not.toContain("declare const codemode");
      expect(big).toContain('codemode.describe("tool_name")');
      expect(big).toMatch(/… \d+ more \(use search\)$/);
    });
    it("keeps helpers reachable as $search / $describe when a tool takes the name", async () => {
      const server = new McpServer({ name: "s", version: "1.0.0" });
      server.registerTool(
        "search",
        { inputSchema: z.object({ q: z.string() }) },
        async ({ q }) => ({
          content: [{ type: "text", text: JSON.stringify(`searched ${q}`) }],
        }),
      );
      const client = await connect(createMcpHandler(codeMcpServer({ upstream: server, executor })));
      const result = await client.callTool({
        name: "code",
        arguments: {
          code: 'return [await codemode.search({ q: "x" }), (await codemode.$describe("search")).includes("search(input")]',
        },
      });
      expect(text(result)).toBe(JSON.stringify(["searched x", true]));
    });
  });
});
