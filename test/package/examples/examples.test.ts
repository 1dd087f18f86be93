// The docs' examples (docs/examples/, copied into the project `code-mode-mcp init` wrote) run as a
// user pastes them: each module is imported (its module scope reads `env` from
// "cloudflare:workers"), its fetch handler is asked by a real MCP client, and its tools answer.
// The codeMcpServer examples' upstream (mcp.example.com) is a real MCP server in the test's Node
// process (vitest.config.ts routes the Worker's requests for that host to it).
// The client examples (sdk-v1-client.ts, sdk-v2-client.ts) are Node programs against `npm start`;
// they are type-checked only.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createMcpHandler } from "code-mode-mcp";
import { describe, expect, it } from "vitest";
import {
  connect as connectInProcess,
  text,
  toolNames,
  type Handler,
} from "../example-support/in-process-client";
import spec from "./openapi.json";

/** A real MCP client for `handler`, in-process (example-support/in-process-client.ts). */
const connect = (handler: Handler) => connectInProcess(handler, "docs-examples");

describe("the docs' examples, run", () => {
  it.each([
    ["quick-openapi", () => import("./quick-openapi")],
    ["openapi-server", () => import("./openapi-server")],
  ])("%s serves search and execute, and search reads the spec", async (_name, load) => {
    const example = (await load()) as { default: Handler };
    const client = await connect(example.default);
    expect(await toolNames(client)).toEqual(["execute", "search"]);
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
    expect(await toolNames(client)).toEqual(["code"]);
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
    expect(await toolNames(client)).toEqual(["hello"]);
    const greeting = await client.callTool({ name: "hello", arguments: { name: "docs" } });
    expect(text(greeting)).toBe("Hello, docs!");
    await client.close();
  });

  it("stateful-agent adds in its Durable Object session", async () => {
    const example = (await import("./stateful-agent")) as unknown as { default: Handler };
    const client = await connect(example.default);
    expect(await toolNames(client)).toEqual(["add"]);
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(text(sum)).toBe("5");
    await client.close();
  });

  it("tasks-server answers a plain call of its task tool", async () => {
    const example = (await import("./tasks-server")) as { default: Handler };
    const client = await connect(example.default);
    expect(await toolNames(client)).toEqual(["report"]);
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
