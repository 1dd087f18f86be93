// Seed example: "createLegacyMcpHandler" (a legacy Worker building a handler per request).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#createlegacymcphandler
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/handler-api.mdx).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createLegacyMcpHandler } from "code-mode-mcp/mcp";

function createServer() {
  return new McpServer({ name: "legacy-server", version: "1.0.0" });
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return createLegacyMcpHandler(createServer())(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
