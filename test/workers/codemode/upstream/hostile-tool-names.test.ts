/**
 * Upstream tool names that are property names with a meaning of their own in JavaScript
 * (`__proto__`, `constructor`, `hasOwnProperty`, `then`, `toString`): an upstream listing them
 * must not break the `code` tool (a tool named `__proto__` set the prototype of the host's
 * namespace object, and the next name, `constructor`, then failed to assign: every run threw),
 * and each stays callable under the name its declaration shows.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text, textResult } from "../../../helpers/clients/tool-result";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
const NAMES = ["__proto__", "constructor", "hasOwnProperty", "then", "toString"];

/** A remote upstream whose tools/list adds tools with these names; each call echoes its name. */
function oddNamesUpstream() {
  const server = () => {
    const s = new McpServer({ name: "odd", version: "1.0.0" });
    s.registerTool("fine", {}, async () => textResult('"fine"'));
    return s;
  };
  const handler = direct(createMcpHandler(server));
  return {
    url: "http://odd.local/mcp",
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? init.body : "";
      const message = body.startsWith("{")
        ? (JSON.parse(body) as { id?: number; method?: string; params?: { name?: string } })
        : {};
      const called = message.method === "tools/call" ? message.params?.name : undefined;
      if (called !== undefined && NAMES.includes(called))
        return Response.json({
          jsonrpc: "2.0",
          id: message.id,
          result: { ...textResult(JSON.stringify(called)), resultType: "complete" },
        });
      const response = await handler(url, init);
      if (!body.includes('"tools/list"')) return response;
      const listed = (await response.json()) as { result: { tools: unknown[] } };
      for (const name of NAMES)
        listed.result.tools.push({
          name,
          description: `Tool ${name}.`,
          inputSchema: { type: "object" },
        });
      return Response.json(listed, { headers: response.headers });
    },
  };
}

describe("upstream tools named like Object.prototype members", () => {
  it("leave the code tool working, each callable under its declared name", async () => {
    const factory = codeMcpServer({ upstream: oddNamesUpstream(), executor });
    const client = await connect(createMcpHandler(factory));
    const { tools } = await client.listTools();
    const declared = [...tools[0]!.description!.matchAll(/^ {2}(\w+)\(input/gm)].map((m) => m[1]!);
    const result = await client.callTool({
      name: "code",
      arguments: {
        code: `async () => {
          const out = {};
          for (const n of ${JSON.stringify(declared)}) out[n] = await codemode[n]();
          return out;
        }`,
      },
    });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    const out = JSON.parse(text(result)) as Record<string, string>;
    expect(Object.values(out).toSorted()).toEqual(["fine", ...NAMES].toSorted());
  });
});
