// The docs' examples (docs/examples/, copied into the project `code-mode-mcp init` wrote) run as a
// user pastes them: each module is imported (its module scope reads `env` from
// "cloudflare:workers"), its fetch handler is asked by a real MCP client, and its tools answer.
// The codeMcpServer examples' upstream (mcp.example.com) is a real MCP server in the test's Node
// process (vitest.config.ts routes the Worker's requests for that host to it).
// The client examples (sdk-v1-client.ts, sdk-v2-client.ts) are Node programs against `npm start`;
// they are type-checked only.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createMcpHandler } from "code-mode-mcp";
import { describe, expect, it } from "vitest";
import spec from "./openapi.json";

type Handler = { fetch(request: Request, env: Cloudflare.Env, ctx: ExecutionContext): unknown };

/** A real MCP client whose requests go to `handler` in-process (no socket). */
async function connect(handler: Handler, path = "/mcp"): Promise<Client> {
  const client = new Client(
    { name: "docs-examples", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: async (url, init) => {
        // No standalone GET stream: nothing stays open after a test.
        if ((init?.method ?? "GET") === "GET") return new Response(null, { status: 405 });
        const ctx = createExecutionContext();
        const response = (await handler.fetch(new Request(url, init), env, ctx)) as Response;
        await waitOnExecutionContext(ctx);
        return response;
      },
    }),
  );
  return client;
}

const names = async (client: Client) =>
  (await client.listTools()).tools.map((t) => t.name).toSorted();
const text = (result: unknown) =>
  (result as { content?: { text?: string }[] }).content?.[0]?.text ?? "";

describe("the docs' examples, run", () => {
  it.each([
    ["quick-openapi", () => import("./quick-openapi")],
    ["openapi-server", () => import("./openapi-server")],
  ])("%s serves search and execute, and search reads the spec", async (_name, load) => {
    const example = (await load()) as { default: Handler };
    const client = await connect(example.default);
    expect(await names(client)).toEqual(["execute", "search"]);
    const found = await client.callTool({
      name: "search",
      arguments: { code: "async () => Object.keys((await codemode.spec()).paths)" },
    });
    expect(JSON.parse(text(found))).toEqual(Object.keys(spec.paths));
    await client.close();
  });

  it.each([
    ["quick-code", () => import("./quick-code")],
    ["code-server", () => import("./code-server")],
  ])("%s wraps its upstream's tools in one code tool", async (_name, load) => {
    const example = (await load()) as { default: Handler };
    const client = await connect(example.default);
    expect(await names(client)).toEqual(["code"]);
    const result = await client.callTool({
      name: "code",
      arguments: { code: `async () => await codemode.greet({ name: "docs" })` },
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("Hello, docs!");
    await client.close();
  });

  it("stateless-server greets", async () => {
    const example = (await import("./stateless-server")) as { default: Handler };
    const client = await connect(example.default);
    expect(await names(client)).toEqual(["hello"]);
    const greeting = await client.callTool({ name: "hello", arguments: { name: "docs" } });
    expect(text(greeting)).toBe("Hello, docs!");
    await client.close();
  });

  it("stateful-agent adds in its Durable Object session", async () => {
    const example = (await import("./stateful-agent")) as unknown as { default: Handler };
    const client = await connect(example.default);
    expect(await names(client)).toEqual(["add"]);
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(text(sum)).toBe("5");
    await client.close();
  });

  it("tasks-server answers a plain call of its task tool", async () => {
    const example = (await import("./tasks-server")) as { default: Handler };
    const client = await connect(example.default);
    expect(await names(client)).toEqual(["report"]);
    expect(text(await client.callTool({ name: "report", arguments: {} }))).toBe("done");
    await client.close();
  });

  it("executor runs a program against host functions", async () => {
    const example = (await import("./executor")) as { default: Handler };
    const ctx = createExecutionContext();
    const response = (await example.default.fetch(
      new Request("http://localhost/"),
      env,
      ctx,
    )) as Response;
    expect(await response.json()).toEqual({ status: "ok", result: 2 });
  });

  it("run-history stores each run's record", async () => {
    const { api } = await import("./run-history");
    const client = await connect({
      fetch: (request, bindings, ctx) => createMcpHandler(api)(request, bindings, ctx),
    });
    await client.callTool({ name: "search", arguments: { code: "async () => 1 + 1" } });
    await client.close();
    // onRun is not awaited by the run: its write lands shortly after.
    let stored = 0;
    for (let i = 0; i < 50 && stored === 0; i++) {
      stored = (await env.RUNS_KV.list({ prefix: "run:" })).keys.length;
      if (stored === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(stored).toBe(1);
  });
});
