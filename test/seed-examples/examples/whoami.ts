// Seed example: "Authentication context" (`getMcpAuthContext()` in a `whoami` tool).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#authentication-context
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/handler-api.mdx).
// Verbatim between the BEGIN/END markers; only import paths changed ("agents/mcp" ->
// "code-mode-mcp/mcp"). The snippet registers on a `server` it does not define: the factory
// around it, which the test serves behind OAuthProvider, is scaffolding.
import { McpServer } from "@modelcontextprotocol/server"; // scaffolding import
// BEGIN seed snippet (imports)
import { getMcpAuthContext } from "code-mode-mcp/mcp";
// END seed snippet (imports)

/** Scaffolding: the server factory the snippet registers its tool on. */
export function createServer() {
  const server = new McpServer({ name: "whoami", version: "1.0.0" });
  // BEGIN seed snippet
  server.registerTool(
    "whoami",
    { description: "Return the current identity", inputSchema: {} },
    async (_args, context) => {
      const auth = getMcpAuthContext();

      return {
        content: [
          {
            type: "text",
            text: JSON.stringify({
              clientId: context.http?.authInfo?.clientId,
              scopes: context.http?.authInfo?.scopes,
              userId: auth?.props.userId,
            }),
          },
        ],
      };
    },
  );
  // END seed snippet
  return server;
}
