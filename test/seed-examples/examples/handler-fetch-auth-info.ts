// Seed example: "Invoke the handler", behind another framework or auth layer:
// `handler.fetch(request, { authInfo, parsedBody })`.
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#invoke-the-handler
// The snippet line is verbatim between the BEGIN/END markers. Around it, scaffolding plays the
// framework: it has already read the JSON body and verified the caller (here from an
// `x-user` header) before the MCP handler runs.
import { McpServer } from "@modelcontextprotocol/server";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";

/** Scaffolding: a server whose `whoami` tool reports the verified caller. */
const handler = createMcpHandler((ctx) => {
  const server = new McpServer({ name: "behind-a-framework", version: "1.0.0" });
  server.registerTool("whoami", { description: "Who called" }, async (context) => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({
          factory: ctx?.authInfo?.clientId,
          tool: context.http?.authInfo?.clientId,
          scopes: context.http?.authInfo?.scopes,
        }),
      },
    ],
  }));
  return server;
});

export default {
  async fetch(request: Request) {
    // Scaffolding: the framework consumed the body and authenticated the caller.
    const parsedBody: unknown = request.method === "POST" ? await request.json() : undefined;
    const authInfo: AuthInfo = {
      token: "opaque",
      clientId: request.headers.get("x-user") ?? "anonymous",
      scopes: ["notes:read"],
    };
    // BEGIN seed snippet
    const response = await handler.fetch(request, {
      authInfo,
      parsedBody,
    });
    // END seed snippet
    return response;
  },
};
