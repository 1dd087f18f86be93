// A real MCP server for the e2e scripts to wrap behind /mcp/code: SDK v1, Streamable HTTP, a fresh
// server and transport per POST (stateless), on a free loopback port, recording the
// Authorization header of every request it receives.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createServer } from "node:http";
import { freePort } from "../../../cli/local-server/free-port.mjs";

/**
 * Starts the server.
 * @param {(server: McpServer, request: import("node:http").IncomingMessage) => void} register - adds the tools (per request)
 * @param {string | undefined} requiredAuth - answer 401 unless this Authorization value is sent
 * @returns {Promise<{ url: string, seen: (string | undefined)[], close: () => void }>}
 */
export async function mcpUpstream(register, requiredAuth) {
  /** @type {(string | undefined)[]} */
  const seen = [];
  const http = createServer(async (req, res) => {
    seen.push(req.headers.authorization);
    if (requiredAuth !== undefined && req.headers.authorization !== requiredAuth) {
      res.statusCode = 401;
      return res.end("unauthorized");
    }
    if (req.method !== "POST") {
      res.statusCode = 405;
      return res.end();
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    const server = new McpServer({ name: "e2e-upstream", version: "1.0.0" });
    register(server, req);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(body));
  });
  const port = await freePort();
  await new Promise((resolve) => http.listen(port, "127.0.0.1", () => resolve(undefined)));
  return { url: `http://127.0.0.1:${port}/mcp`, seen, close: () => http.close() };
}

/**
 * A tool result carrying `value` as JSON text.
 * @param {unknown} value
 */
export const json = (value) => ({
  content: [{ type: /** @type {const} */ ("text"), text: JSON.stringify(value) }],
});
