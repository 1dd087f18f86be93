// The McpAgent add/square example (as with `agents/mcp`, only the package name differs).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "code-mode-mcp/mcp";
import { z } from "zod";

export class AddAgent extends McpAgent {
  server = new McpServer({ name: "Demo", version: "1.0.0" });

  async init() {
    this.server.tool("add", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }));
    this.server.tool("square", { a: z.number() }, async ({ a }) => ({
      content: [{ type: "text", text: String(a * a) }],
    }));
  }
}
