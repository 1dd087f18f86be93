/**
 * Seed example examples/create-mcp-handler-hello.ts: the stateless hello server from the Worker's
 * object export, called by an SDK v2 client (modern era) and an SDK v1 client (2025 era, served
 * by the default `legacy: "stateless"` lane).
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/create-mcp-handler-hello";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";

describe("seed: createMcpHandler hello", () => {
  it("greets an SDK v2 client", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(worker));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ["hello", "Returns a greeting message"],
    ]);
    expect(text(await client.callTool({ name: "hello", arguments: { name: "Ada" } }))).toBe(
      "Hello, Ada!",
    );
    expect(text(await client.callTool({ name: "hello", arguments: {} }))).toBe("Hello, World!");
    await client.close();
  });

  it("greets an SDK v1 client", async () => {
    const { client } = await connectV1("http://localhost/mcp", viaWorker(worker));
    expect(text(await client.callTool({ name: "hello", arguments: { name: "Lin" } }))).toBe(
      "Hello, Lin!",
    );
    await client.close();
  });
});
