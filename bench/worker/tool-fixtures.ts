/**
 * The upstream tool fixtures behind both `code` tools: `n` realistic tools (nested input, an
 * enum, optional fields, an output schema), the same set as test/workers/codemode's
 * description-bounds test, built once for each SDK from one definition.
 */
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** Fixture sizes the benchmark measures. */
export const TOOL_COUNTS = [5, 50, 500] as const;

const inputShape = {
  id: z.string().describe("Item id"),
  settings: z.object({
    mode: z.enum(["fast", "safe", "off"]),
    retries: z.number().int().optional(),
    tags: z.array(z.string()).optional(),
  }),
};
const outputShape = { id: z.string(), version: z.number() };

function describeTool(i: number): string {
  return `Update resource family ${i}: changes the settings of one item and returns the new version. Requires write access.`;
}

function answer(id: string, i: number) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify({ id, version: i }) }],
    structuredContent: { id, version: i },
  };
}

/** The fixture as an SDK v2 server (what our `codeMcpServer` wraps). */
export function v2ToolServer(n: number): McpServer {
  const server = new McpServer({ name: `big-${n}`, version: "1.0.0" });
  for (let i = 0; i < n; i++) {
    server.registerTool(
      `resource_${i}_update`,
      {
        description: describeTool(i),
        inputSchema: z.object(inputShape),
        outputSchema: z.object(outputShape),
      },
      async ({ id }) => answer(id, i),
    );
  }
  return server;
}

/** The same fixture as an SDK v1 server (what `@cloudflare/codemode`'s `codeMcpServer` wraps). */
export function v1ToolServer(n: number): V1McpServer {
  const server = new V1McpServer({ name: `big-${n}`, version: "1.0.0" });
  for (let i = 0; i < n; i++) {
    server.registerTool(
      `resource_${i}_update`,
      { description: describeTool(i), inputSchema: inputShape, outputSchema: outputShape },
      async ({ id }) => answer(id, i),
    );
  }
  return server;
}
