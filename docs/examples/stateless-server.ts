// README example "createMcpHandler" (stateless hosting, SDK v2). Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

// A fresh server per request: pass the factory, never one global instance.
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "hello", version: "1.0.0" });
  server.registerTool(
    "hello",
    { description: "Greets someone", inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name}!` }] }),
  );
  return server;
});
export default {
  fetch: (request, env, ctx) => handler(request, env, ctx),
} satisfies ExportedHandler;
