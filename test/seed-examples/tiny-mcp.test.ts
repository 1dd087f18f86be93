/**
 * Seed example examples/tiny-mcp.ts: "TinyMCP", a whole Worker in one line
 * (`export default TinyMcp.serve("/")`), with an empty server name. An SDK v1 client at the
 * root path squares a number; other paths answer 404.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./examples/tiny-mcp";
import { withMcpObject } from "./support/bindings";
import { connectV1, text, viaWorker } from "./support/clients";

const fetch = viaWorker(worker, withMcpObject(env.TINY_MCP));

describe("seed: TinyMCP served at /", () => {
  it("serves the square tool at the root path", async () => {
    const { client } = await connectV1("http://localhost/", fetch);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ["square", "Squares a number"],
    ]);
    expect(text(await client.callTool({ name: "square", arguments: { number: 5 } }))).toBe("25");
    await client.close();
  });

  it("answers 404 off its path", async () => {
    expect((await fetch("http://localhost/mcp", { method: "POST" })).status).toBe(404);
  });
});
