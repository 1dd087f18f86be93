/**
 * The seed's `createServer()` (the hello tool of createMcpHandler's page), for the snippets that
 * call `createServer` without defining it (CORS options, export patterns, `handler.fetch`).
 */
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** The seed's hello server factory: a fresh SDK v2 server per request. */
export function createServer() {
  const server = new McpServer({ name: "Hello MCP Server", version: "1.0.0" });
  server.registerTool(
    "hello",
    {
      description: "Returns a greeting message",
      inputSchema: { name: z.string().optional() },
    },
    async ({ name }) => ({ content: [{ text: `Hello, ${name ?? "World"}!`, type: "text" }] }),
  );
  return server;
}
