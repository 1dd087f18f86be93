// A stateless server: a fresh SDK v2 McpServer per request, served by createMcpHandler.
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

export const helloHandler = createMcpHandler(
  () => {
    const server = new McpServer({ name: "hello", version: "1.0.0" });
    server.registerTool(
      "hello",
      { description: "Greets someone", inputSchema: z.object({ name: z.string() }) },
      async ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name}!` }] }),
    );
    return server;
  },
  { route: "/hello" },
);
