/**
 * Seed example examples/mcp-agent-square.ts: `export default MyMCP.serve("/mcp")`, no binding
 * option, so the Worker finds the agent under the default `MCP_OBJECT` binding. Real SDK v1 and
 * v2 clients (the v2 client negotiates the 2025 era with a Durable Object session).
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/mcp-agent-square";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";

describe("seed: McpAgent.serve('/mcp') with the default MCP_OBJECT binding", () => {
  it("serves the square tool to an SDK v1 client", async () => {
    const { client } = await connectV1("http://localhost/mcp", viaWorker(worker));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["square"]);
    expect(text(await client.callTool({ name: "square", arguments: { n: 7 } }))).toBe("49");
    await client.close();
  });

  it("serves the square tool to an SDK v2 client", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(worker));
    expect(text(await client.callTool({ name: "square", arguments: { n: 12 } }))).toBe("144");
    await client.close();
  });

  it("answers 404 off its path", async () => {
    const response = await viaWorker(worker)("http://localhost/other", { method: "POST" });
    expect(response.status).toBe(404);
  });
});
