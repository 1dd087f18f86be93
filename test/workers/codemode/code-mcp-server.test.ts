import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../src/codemode/code-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";
import { createMcpHandler, type StatelessMcpHandler } from "../../../src/index";
import { BLOCKED_TASKS, BLOCKED_TASKS_PROGRAM, v1Upstream, v2Upstream } from "./fixtures";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
const declare: CodeMcpServerOptions["declare"] = (tool, id) =>
  `${id}(input: ${JSON.stringify(tool.inputSchema)}): Promise<unknown>;`;

function direct(handler: StatelessMcpHandler) {
  return (url: string | URL | Request, init?: RequestInit) => handler.fetch(new Request(url, init));
}

async function connect(
  handler: StatelessMcpHandler,
  path = "http://localhost/mcp",
): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path), { fetch: direct(handler) }),
  );
  return client;
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

describe("codeMcpServer", () => {
  it.each([
    ["an SDK v2 server instance", () => v2Upstream()],
    ["an SDK v1 server instance", () => v1Upstream()],
    ["a server factory", () => ({ server: v2Upstream })],
    [
      "a remote server over HTTP",
      () => ({
        url: "http://upstream.local/mcp",
        headers: { authorization: "Bearer secret-upstream-token" },
        fetch: direct(createMcpHandler(v2Upstream)),
      }),
    ],
  ])("runs the contract's example program against %s", async (_label, upstream) => {
    const handler = createMcpHandler(
      codeMcpServer({
        upstream: upstream() as CodeMcpServerOptions["upstream"],
        executor,
        declare,
      }),
    );
    const client = await connect(handler);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["code"]);
    const result = await client.callTool({
      name: "code",
      arguments: { code: BLOCKED_TASKS_PROGRAM },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(BLOCKED_TASKS);
    expect(text(result)).not.toContain("secret-upstream-token");
    await client.close();
  });
});
