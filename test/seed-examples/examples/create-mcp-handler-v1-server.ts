// Seed example: createMcpHandler over an SDK v1 `McpServer` (the earlier createMcpHandler page,
// "Stateless MCP Servers"). The current page says passing an SDK v1 server "still works but
// emits a deprecation warning".
// Source: https://developers.cloudflare.com/agents/model-context-protocol/mcp-handler-api/
// (cloudflare-docs src/content/docs/agents/api-reference/mcp-handler-api.mdx, earlier revision).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { createMcpHandler } from "code-mode-mcp/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const server = new McpServer({
  name: "Hello MCP Server",
  version: "1.0.0",
});

server.tool(
  "hello",
  "Returns a greeting message",
  { name: z.string().optional() },
  async ({ name }) => {
    return {
      content: [
        {
          text: `Hello, ${name ?? "World"}!`,
          type: "text",
        },
      ],
    };
  },
);

export default {
  fetch: async (request: Request, env: Env, ctx: ExecutionContext) => {
    const handler = createMcpHandler(server);
    return handler(request, env, ctx);
  },
};
