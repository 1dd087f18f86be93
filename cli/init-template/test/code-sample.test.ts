// The sample MCP server end to end: `code` declares its tools and one program calls them.
import { describe, expect, it } from "vitest";
import { connect, json } from "./client";

describe("/mcp/code over the sample MCP server", () => {
  it("code calls the upstream MCP server's tools", async () => {
    const client = await connect("/mcp/code");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["code"]);
    const result = await client.callTool({
      name: "code",
      arguments: {
        code: `async () => {
          const { tasks } = await codemode.list_tasks({ owner: "ana" });
          return tasks.filter((t) => t.status !== "done").length;
        }`,
      },
    });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toBe(1);
    await client.close();
  });
});
