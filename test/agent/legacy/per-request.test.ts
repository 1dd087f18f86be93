// createLegacyMcpHandler built per request without storage, as the seed's legacy Worker does.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createLegacyMcpHandler } from "code-mode-mcp/mcp";
import { text } from "../helpers";

const URL_LOCAL = "http://localhost/mcp";

/** The seed's legacy Worker: a new server and handler for every request, no `storage`. */
function createServer() {
  const server = new McpServer({ name: "per-request", version: "1.0.0" });
  server.tool("add", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.tool("caps", async () => ({
    content: [
      {
        type: "text",
        text: JSON.stringify(server.server.getClientCapabilities() ?? null),
      },
    ],
  }));
  return server;
}

const worker = {
  fetch: (request: Request, env: unknown, ctx: ExecutionContext) =>
    createLegacyMcpHandler(createServer())(request, env, ctx),
};
const direct = (url: string | URL | Request, init?: RequestInit) =>
  worker.fetch(new Request(url, init), {}, createExecutionContext());

describe("createLegacyMcpHandler built per request without storage (the seed's legacy Worker)", () => {
  it("serves a whole SDK v1 client session: initialize, tools/list, two tool calls", async () => {
    const client = new Client(
      { name: "v1", version: "1.0.0" },
      {
        capabilities: { elicitation: { form: {} } },
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      },
    );
    const transport = new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
      fetch: direct,
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "caps"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    expect(text(await client.callTool({ name: "add", arguments: { a: 4, b: 5 } }))).toBe("9");
    // Each request met a fresh server: it still knows what the client declared at initialize.
    expect(JSON.parse(text(await client.callTool({ name: "caps", arguments: {} })))).toEqual({
      elicitation: { form: {} },
    });
    await transport.terminateSession();
    await client.close();
  });

  it("serves a whole SDK v2 client session", async () => {
    const client = new V2Client(
      { name: "v2", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new V2Transport(new URL(URL_LOCAL), { fetch: direct }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("add");
    const first = await client.callTool({
      name: "add",
      arguments: { a: 1, b: 1 },
    });
    const second = await client.callTool({
      name: "add",
      arguments: { a: 20, b: 22 },
    });
    expect([text(first), text(second)]).toEqual(["2", "42"]);
    await client.close();
  });

  it("refuses a session id it did not issue with 404", async () => {
    const response = await direct(URL_LOCAL, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "not-a-session-of-ours",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
  });
});
