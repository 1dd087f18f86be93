// Seed example: "Stateless MCP Server with createMcpHandler()" (the hello tool).
// Source: cloudflare/agents docs/agents/mcp-servers.md (the same server is the `hello` example of
// https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/).
// Verbatim; only import paths changed ("agents/mcp/server" -> "code-mode-mcp/mcp/server").
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

function createServer() {
  const server = new McpServer({
    name: "Hello MCP Server",
    version: "1.0.0",
  });

  server.registerTool(
    "hello",
    {
      description: "Returns a greeting message",
      inputSchema: { name: z.string().optional() },
    },
    async ({ name }) => ({
      content: [{ text: `Hello, ${name ?? "World"}!`, type: "text" }],
    }),
  );

  return server;
}

export default {
  fetch(request, env, ctx) {
    return createMcpHandler(createServer)(request, env, ctx);
  },
} satisfies ExportedHandler;
