// The MCP server the codeMcpServer examples wrap (mcp.example.com in both example projects): a
// real SDK v2 server with one tool, `greet`, run in the test's Node process by the vitest
// configs' outbound service. Each config checks the credential its examples send first.
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/**
 * A greeting MCP server answering the Worker's outbound requests.
 * @param name - the server's name
 * @returns what answers one request (its credential already checked by the caller)
 */
export function greetUpstream(name: string): (request: Request) => Promise<Response> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name, version: "1.0.0" });
    server.registerTool(
      "greet",
      { description: "Greets someone", inputSchema: z.object({ name: z.string() }) },
      async ({ name: who }) => ({ content: [{ type: "text", text: `Hello, ${who}!` }] }),
    );
    return server;
  });
  return async (request) => {
    // A request of the Worker's outbound, copied whole into one the handler takes.
    const body = request.method === "GET" ? undefined : await request.arrayBuffer();
    return handler.fetch(
      new Request(request.url, { method: request.method, headers: request.headers, body }),
    );
  };
}
