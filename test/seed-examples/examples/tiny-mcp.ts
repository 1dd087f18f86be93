// Seed example: "Writing TinyMCP" (the whole Worker: one agent, `export default TinyMcp.serve("/")`
// on the default MCP_OBJECT binding).
// Source: cloudflare/agents docs/agents/mcp-servers.md, "Stateful MCP Server with McpAgent".
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { McpAgent } from "code-mode-mcp/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

// Our MCP server!
export class TinyMcp extends McpAgent {
  server = new McpServer({ name: "", version: "v1.0.0" });

  async init() {
    this.server.registerTool(
      "square",
      {
        description: "Squares a number",
        inputSchema: { number: z.number() },
      },
      async ({ number }) => ({
        content: [{ type: "text", text: String(number ** 2) }],
      }),
    );
  }
}

// This is literally all there is to our Worker
export default TinyMcp.serve("/");
