/**
 * Seed example examples/dual-transport.ts: the remote MCP server template, whose Worker routes
 * `/sse` and `/sse/message` to `MyMCP.serveSSE("/sse")` (2024-11-05 HTTP+SSE) and `/mcp` to
 * `MyMCP.serve("/mcp")` (Streamable HTTP), both on the default `MCP_OBJECT` binding. The test
 * hands the example an env whose `MCP_OBJECT` is the calculator's own namespace (this test
 * Worker's `MCP_OBJECT` belongs to another example).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "./examples/dual-transport";
import { withMcpObject } from "./support/bindings";
import { connectV1, text, viaWorker } from "./support/clients";

const fetch = viaWorker(worker, withMcpObject(env.CALCULATOR_MCP));

// The template logs every request; keep the test output readable.
afterEach(() => vi.restoreAllMocks());

describe("seed: the remote MCP server template (serve + serveSSE)", () => {
  it("serves the calculator over Streamable HTTP at /mcp", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { client } = await connectV1("http://localhost/mcp", fetch);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "calculate"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
    const divide = { operation: "divide", a: 1, b: 0 };
    expect(text(await client.callTool({ name: "calculate", arguments: divide }))).toBe(
      "Error: Cannot divide by zero",
    );
    await client.close();
  });

  it("serves the calculator over HTTP+SSE at /sse", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const client = new Client(
      { name: "seed-example-test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(new SSEClientTransport(new URL("http://localhost/sse"), { fetch }));
    try {
      const divide = { operation: "multiply", a: 6, b: 7 };
      expect(text(await client.callTool({ name: "calculate", arguments: divide }))).toBe("42");
    } finally {
      await client.close();
    }
  });

  it("answers 404 elsewhere", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    expect((await fetch("http://localhost/", {})).status).toBe(404);
  });
});
