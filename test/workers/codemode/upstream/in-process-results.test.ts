/**
 * An upstream `McpServer` in the same isolate is asked with a plain `tools/call` (see
 * src/codemode/upstream/upstream-call.ts): its own handler has checked the result against the tool's
 * output schema, so the client does not check it again. Observable: a result the upstream
 * accepted reaches the sandbox as sent, even where the JSON Schema listed for a zod output schema
 * (`additionalProperties: false`) is stricter than zod itself. Before, only a shared instance's
 * results were refused there (its one connection listed the tools, so the SDK client knew their
 * output schemas); a `{ server }` factory's or a remote upstream's per-run connection never
 * listed them and passed the same result through. Every kind now answers alike.
 */
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../../src/codemode/code-mcp-server";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

const ANSWER = { id: "a-1", version: 3, extra: "kept by the upstream's own zod check" };
const OUT = { id: z.string(), version: z.number() };

function v2Upstream(): McpServer {
  const server = new McpServer({ name: "items", version: "1.0.0" });
  server.registerTool(
    "get_item",
    { description: "One item", outputSchema: z.object(OUT) },
    async () => ({
      content: [{ type: "text", text: JSON.stringify(ANSWER) }],
      structuredContent: ANSWER,
    }),
  );
  server.registerTool(
    "broken_item",
    { description: "An item missing its version", outputSchema: z.object(OUT) },
    async () => ({ content: [], structuredContent: { id: "b-1" } }),
  );
  return server;
}

function v1Upstream(): V1McpServer {
  const server = new V1McpServer({ name: "items", version: "1.0.0" });
  server.registerTool("get_item", { description: "One item", outputSchema: OUT }, async () => ({
    content: [{ type: "text", text: JSON.stringify(ANSWER) }],
    structuredContent: ANSWER,
  }));
  return server;
}

async function run(upstream: CodeMcpServerOptions["upstream"], code: string) {
  const client = await connect(createMcpHandler(codeMcpServer({ upstream, executor })));
  try {
    return await client.callTool({ name: "code", arguments: { code } });
  } finally {
    await client.close();
  }
}

describe("in-process upstream results", () => {
  it.each([
    ["an SDK v2 McpServer instance", () => v2Upstream()],
    ["an SDK v1 McpServer instance", () => v1Upstream()],
    ["a { server } factory", () => ({ server: () => v2Upstream() })],
  ])("reach the sandbox as the upstream sent them (%s)", async (_label, make) => {
    const result = await run(
      make() as CodeMcpServerOptions["upstream"],
      "async () => codemode.get_item({})",
    );
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(ANSWER);
  });

  it("still fail when the upstream's own output check refuses the result", async () => {
    const result = await run(v2Upstream(), "async () => codemode.broken_item({})");
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Output validation error/);
  });

  it("from a remote upstream arrive alike (its per-run connection never listed the tools)", async () => {
    const result = await run(
      { url: "http://upstream.local/mcp", fetch: direct(createMcpHandler(v2Upstream)) },
      "async () => codemode.get_item({})",
    );
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(ANSWER);
  });
});
