// Seed example: McpAgent "add" (the page's first example).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { McpAgent } from "code-mode-mcp/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export class MyMCP extends McpAgent {
  server = new McpServer({ name: "Demo", version: "1.0.0" });

  async init() {
    this.server.tool("add", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }));
  }
}
