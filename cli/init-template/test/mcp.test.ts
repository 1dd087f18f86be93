// /mcp as an MCP client sees it: two tools, and a `search` program that reads the spec inside the
// sandbox (the real Worker Loader of the test runtime) and returns only what it asked for. The
// programs return small answers, so the checks hold for a spec of any size (a result over 32 KB
// would come back truncated).
import { describe, expect, it } from "vitest";
import spec from "../src/openapi.json";
import { connect, json } from "./client";

const paths = Object.keys(spec.paths);

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
      arguments: {
        code: `async () => {
          const paths = Object.keys((await codemode.spec()).paths);
          return { count: paths.length, first: paths[0], last: paths.at(-1) };
        }`,
      },
    });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toEqual({ count: paths.length, first: paths[0], last: paths.at(-1) });
    await client.close();
  });
});
