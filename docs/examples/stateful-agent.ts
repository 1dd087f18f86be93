// README example "McpAgent" (stateful sessions in Durable Objects, as agents/mcp). Kept in sync
// with README.md by test/unit/docs-examples.test.ts and compiled by the typecheck.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "code-mode-mcp/mcp";
import { z } from "zod";

// One Durable Object per client session (bind it as MCP_OBJECT, a SQLite class, in wrangler.jsonc).
export class MyMCP extends McpAgent {
  server = new McpServer({ name: "Demo", version: "1.0.0" });

  async init() {
    this.server.tool("add", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }));
  }
}

export default MyMCP.serve("/mcp");
