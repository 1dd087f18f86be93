// `createMcpHandler(server)` with one SDK v1 server instance (the older `agents` form): it
// serves whole sessions of real SDK v1 and v2 clients, survives the second and concurrent
// requests (one instance takes one transport at a time, so requests take turns), and warns
// once per handler. `experimental_createMcpHandler` is the same function.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler, experimental_createMcpHandler } from "code-mode-mcp/mcp/server";
import * as root from "code-mode-mcp";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { z } from "zod";
import { SHARED_V1_WARNING } from "../../../src/mcp/stateless/shared-v1-server";
import { direct } from "../../helpers/clients/mcp-client";

const URL_LOCAL = "http://localhost/mcp";
type Handler = ReturnType<typeof createMcpHandler>;

/** One v1 instance, built once, with a tool that records how many calls run at once. */
function v1Instance() {
  const load = { active: 0, most: 0 };
  const server = new V1McpServer({ name: "v1-instance", version: "1.0.0" });
  server.registerTool("shout", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: text.toUpperCase() }],
  }));
  server.registerTool("slow", { inputSchema: { n: z.number() } }, async ({ n }) => {
    load.active++;
    load.most = Math.max(load.most, load.active);
    await new Promise((resolve) => setTimeout(resolve, 5));
    load.active--;
    return { content: [{ type: "text", text: `done ${n}` }] };
  });
  server.registerTool("boom", {}, async () => {
    throw new Error("tool failed");
  });
  return { server, load };
}

async function v1Client(handler: Handler) {
  const client = new V1Client({ name: "v1-client", version: "1.0.0" });
  await client.connect(new V1Transport(new URL(URL_LOCAL), { fetch: direct(handler) }));
  return client;
}

async function v2Client(handler: Handler) {
  const client = new Client(
    { name: "v2-client", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
      fetch: direct(handler),
    }),
  );
  return client;
}

const first = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("createMcpHandler(v1 server instance) (deprecated)", () => {
  let warn: MockInstance<typeof console.warn>;
  beforeEach(() => {
    warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it("serves a whole SDK v1 client session: the second and later requests work", async () => {
    const { server } = v1Instance();
    const handler = createMcpHandler(server);
    const client = await v1Client(handler);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["shout", "slow", "boom"]);
    for (const text of ["a", "b", "c"])
      expect(first(await client.callTool({ name: "shout", arguments: { text } }))).toBe(
        text.toUpperCase(),
      );
    await client.close();
  });

  it("serves concurrent requests one at a time, each with its own answer", async () => {
    const { server, load } = v1Instance();
    const handler = createMcpHandler(server);
    const [a, b] = [await v1Client(handler), await v1Client(handler)];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        (n % 2 ? a : b).callTool({ name: "slow", arguments: { n } }).then(first),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 8 }, (_, n) => `done ${n}`));
    expect(load.most).toBe(1);
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps serving after a tool throws and after a request is aborted mid-call", async () => {
    const { server } = v1Instance();
    const handler = createMcpHandler(server);
    const client = await v1Client(handler);
    const failed = await client.callTool({ name: "boom", arguments: {} });
    expect(failed.isError).toBe(true);
    const aborted = new AbortController();
    const call = client.callTool({ name: "slow", arguments: { n: 1 } }, undefined, {
      signal: aborted.signal,
    });
    aborted.abort();
    await expect(call).rejects.toThrow();
    expect(first(await client.callTool({ name: "shout", arguments: { text: "still" } }))).toBe(
      "STILL",
    );
    await client.close();
  });

  it("lets an SDK v2 client fall back to 2025 and call tools", async () => {
    const { server } = v1Instance();
    const handler = createMcpHandler(server);
    const client = await v2Client(handler);
    expect(client.getProtocolEra()).toBe("legacy");
    expect(first(await client.callTool({ name: "shout", arguments: { text: "v2" } }))).toBe("V2");
    expect(first(await client.callTool({ name: "shout", arguments: { text: "again" } }))).toBe(
      "AGAIN",
    );
    await client.close();
  });

  it("warns at most once per isolate, naming the factory form to use instead", async () => {
    // Earlier tests of this file may already have printed it: Workers that build the handler per
    // request must not warn per request (as agents, once per isolate).
    for (let i = 0; i < 2; i++) {
      const client = await v1Client(createMcpHandler(v1Instance().server));
      await client.callTool({ name: "shout", arguments: { text: "x" } });
      await client.close();
    }
    expect(warn.mock.calls.length).toBeLessThanOrEqual(1);
    expect(SHARED_V1_WARNING).toMatch(/deprecated.*createMcpHandler\(\(\) => /);
  });

  it("still refuses an SDK v2 server instance (pass a factory)", () => {
    const server = new McpServer({ name: "v2-shared", version: "1" });
    expect(() => createMcpHandler(server as never)).toThrow(/factory/);
  });

  it("exports experimental_createMcpHandler as the same function", () => {
    expect(experimental_createMcpHandler).toBe(createMcpHandler);
    expect(root.experimental_createMcpHandler).toBe(root.createMcpHandler);
  });
});
