// /mcp as an MCP client sees it: two tools, and a `search` program that reads the spec inside the
// sandbox (the real Worker Loader of the test runtime) and returns only what it asked for.
import { describe, expect, it } from "vitest";
import spec from "../src/openapi.json";
import { connect, json } from "./client";

describe("/mcp", () => {
  it("lists search and execute", async () => {
    const client = await connect("/mcp");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).toSorted()).toEqual(["execute", "search"]);
    await client.close();
  });

  it("search runs code against the spec", async () => {
    const client = await connect("/mcp");
    const result = await client.callTool({
      name: "search",
      arguments: { code: "async () => Object.keys((await codemode.spec()).paths)" },
    });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toEqual(Object.keys(spec.paths));
    await client.close();
  });
});
