// Seed example: "Stateless Elicitation" (`inputRequired(...)` and `acceptedContent(...)`, MRTR).
// Source: cloudflare/agents docs/agents/mcp-servers.md, "Elicitation (Human-in-the-Loop)".
// Verbatim; only import paths changed ("agents/mcp/server" -> "code-mode-mcp/mcp/server").
import { McpServer, acceptedContent, inputRequired } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

function createServer() {
  const server = new McpServer({
    name: "Stateless Elicitation Demo",
    version: "1.0.0",
  });
  server.registerTool("ask-name", { inputSchema: z.object({}) }, async (_args, context) => {
    const answer = acceptedContent(
      context.mcpReq.inputResponses,
      "name",
      z.object({ name: z.string() }),
    );
    if (!answer) {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string" } },
              required: ["name"],
            },
          }),
        },
      });
    }
    return { content: [{ type: "text", text: `Hello ${answer.name}` }] };
  });
  return server;
}

export default {
  fetch(request, env, ctx) {
    return createMcpHandler(createServer, { legacy: "reject" })(request, env, ctx);
  },
} satisfies ExportedHandler;
