// Seed example: "Deploying with McpAgent.serve()" (the square tool, default `MCP_OBJECT` binding).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#deploying-with-mcpagentserve
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { McpAgent } from "code-mode-mcp/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export class MyMCP extends McpAgent {
  server = new McpServer({ name: "my-server", version: "1.0.0" });

  async init() {
    this.server.tool("square", { n: z.number() }, async ({ n }) => ({
      content: [{ type: "text", text: String(n * n) }],
    }));
  }
}

// Export the Worker handler
export default MyMCP.serve("/mcp");
