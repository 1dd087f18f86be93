/**
 * Seed example examples/mcp-agent-add.ts: the McpAgent `add` tool, served the way the docs deploy
 * an agent (`MyMCP.serve(path, { binding })`), called by a real SDK v1 client.
 */
import { describe, expect, it } from "vitest";
import { MyMCP } from "./examples/mcp-agent-add";
import { connectV1, text, viaWorker } from "./support/clients";

describe("seed: McpAgent add", () => {
  it("lists and runs the add tool", async () => {
    const worker = MyMCP.serve("/mcp", { binding: "ADD_MCP" });
    const { client } = await connectV1("http://localhost/mcp", viaWorker(worker));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    await client.close();
  });
});
