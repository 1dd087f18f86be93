// The library's four examples (docs/library.md, "Four examples to paste"), pasted as they are
// into the project `init` wrote (readme-examples/example-<n>.ts), each served and asked by a
// real MCP client (SDK v2) for its tools and a call's answer. Example 1 calls a stand-in tasks
// API with its token and example 2 a stand-in MCP server (vitest.config.ts).
import { describe, expect, it } from "vitest";
import {
  connect as connectInProcess,
  text,
  toolNames,
  type Handler,
} from "../example-support/in-process-client";
import spec from "./openapi.json";

/** A real MCP client for `handler`, in-process (example-support/in-process-client.ts). */
const connect = (handler: Handler) => connectInProcess(handler, "readme-examples");
/** The examples' modules (example 4's default export is McpAgent.serve's handler). */
const EXAMPLES = {
  1: () => import("./example-1"),
  2: () => import("./example-2"),
  3: () => import("./example-3"),
  4: () => import("./example-4"),
};
const load = async (n: keyof typeof EXAMPLES) =>
  ((await EXAMPLES[n]()) as unknown as { default: Handler }).default;

describe("the library's examples, pasted into the project init wrote", () => {
  it("example 1 (openApiMcpServer) searches the spec and calls the API with its token", async () => {
    const client = await connect(await load(1));
    expect(await toolNames(client)).toEqual(["execute", "search"]);
    const found = await client.callTool({
      name: "search",
      arguments: { code: "async () => Object.keys((await codemode.spec()).paths)" },
    });
    expect(JSON.parse(text(found))).toEqual(Object.keys(spec.paths));
    const called = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => (await codemode.request({ method: "GET", path: "/tasks", query: { status: "blocked" } })).map((t) => t.id + ":" + t.status)`,
      },
    });
    expect(called.isError).toBeFalsy();
    expect(JSON.parse(text(called))).toEqual(["t1:blocked", "t2:blocked"]);
    await client.close();
  });

  it("example 2 (codeMcpServer) wraps its upstream's tools in one code tool", async () => {
    const client = await connect(await load(2));
    expect(await toolNames(client)).toEqual(["code"]);
    const result = await client.callTool({
      name: "code",
      arguments: { code: `async () => await codemode.greet({ name: "README" })` },
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("Hello, README!");
    await client.close();
  });

  it("example 3 (createMcpHandler) greets", async () => {
    const client = await connect(await load(3));
    expect(await toolNames(client)).toEqual(["hello"]);
    const greeting = await client.callTool({ name: "hello", arguments: { name: "README" } });
    expect(text(greeting)).toBe("Hello, README!");
    await client.close();
  });

  it("example 4 (McpAgent) adds in its Durable Object session, bound as the page says", async () => {
    const client = await connect(await load(4));
    expect(await toolNames(client)).toEqual(["add"]);
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(text(sum)).toBe("5");
    await client.close();
  });
});
