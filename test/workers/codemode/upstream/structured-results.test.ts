/**
 * What an upstream tool returns reaches the sandbox unchanged (issue #16): keys such as
 * `__proto__` and `constructor` stay own data properties at every depth, through the MCP client,
 * the host, the wire codec and back out in the result. Run against an in-memory upstream and a
 * remote one over HTTP (2026-07-28 and 2025-era), as structured content and as JSON text. Over a
 * 2025-era connection the SDK client's own parse drops a top-level `__proto__` key of
 * `structuredContent`; code mode puts it back from the answer as it arrived (issue #42).
 *
 * Known gap, not ours: an SDK v2 `McpServer` instance connected in memory speaks the 2025 era
 * (`server.connect()`), and that path of the SDK server drops a top-level `__proto__` key from
 * `structuredContent` before sending (seen on its transport). The same server over HTTP
 * (2026-07-28) keeps it, so that combination is left out here and noted for the team.
 */
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../../src/codemode/code-mcp-server";
import { captureConsole } from "../../../helpers/console-capture";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  /** Own `__proto__` keys, as JSON.parse makes them (an object literal would set the prototype). */
  const ODD = '{"__proto__":{"polluted":true},"constructor":"c","inner":{"__proto__":[1,2]},"n":1}';

  function upstream(): McpServer {
    const server = new McpServer({ name: "odd", version: "1.0.0" });
    server.registerTool(
      "structured",
      { description: "Odd keys as structured content" },
      async () => ({
        content: [{ type: "text", text: ODD }],
        structuredContent: JSON.parse(ODD) as Record<string, unknown>,
      }),
    );
    server.registerTool("textual", { description: "Odd keys as JSON text" }, async () => ({
      content: [{ type: "text", text: ODD }],
    }));
    return server;
  }

  const PROGRAM = (tool: string) => `async () => {
  const r = await codemode.${tool}({});
  return {
    keys: Object.keys(r),
    innerKeys: Object.keys(r.inner),
    proto: Object.getOwnPropertyDescriptor(r, "__proto__")?.value,
    polluted: ({}).polluted === undefined ? "no" : "yes",
    plain: Object.getPrototypeOf(r) === Object.prototype,
  };
}`;

  describe.each([
    ["an in-memory upstream", () => upstream()],
    [
      "a remote upstream over HTTP",
      () => ({ url: "http://upstream.local/mcp", fetch: direct(createMcpHandler(upstream)) }),
    ],
  ])("structured results from %s", (label, make) => {
    const tools = label.startsWith("an in-memory") ? ["textual"] : ["structured", "textual"];
    it.each(tools)("keep __proto__ and constructor keys (%s)", async (tool) => {
      const client = await connect(
        createMcpHandler(
          codeMcpServer({ upstream: make() as CodeMcpServerOptions["upstream"], executor }),
        ),
      );
      const result = await client.callTool({ name: "code", arguments: { code: PROGRAM(tool) } });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual(
        JSON.parse(
          '{"keys":["__proto__","constructor","inner","n"],"innerKeys":["__proto__"],"proto":{"polluted":true},"polluted":"no","plain":true}',
        ),
      );
      await client.close();
    });
  });

  /** A 2025-era tool list on SDK v1, which speaks 2025-era MCP only (`initialize`, then calls). */
  function v1Upstream(): V1Server {
    const server = new V1Server({ name: "odd", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "structured", inputSchema: { type: "object" as const } }],
    }));
    return server;
  }

  /**
   * A 2025-era remote upstream whose `tools/call` answers are written as raw JSON text (the SDK
   * v1 server's own result parse would drop a top-level `__proto__` key before sending, which no
   * client can prevent): `{ "__proto__": { polluted: n }, n, inner: { "__proto__": [n] } }` for
   * argument `n`, each answer later than the one before, so calls in flight at once get their
   * answers out of order.
   */
  function rawAnswers(url: string) {
    const handler = direct(createMcpHandler(v1Upstream as unknown as () => McpServer));
    let delay = 60;
    return {
      url,
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const body = typeof init?.body === "string" ? init.body : "";
        const message = (body.startsWith("{") ? JSON.parse(body) : {}) as {
          method?: string;
          id?: unknown;
          params?: { arguments?: { n?: number } };
        };
        if (message.method !== "tools/call") return handler(input, init);
        const n = Number(message.params?.arguments?.n);
        await new Promise((resolve) => setTimeout(resolve, (delay = Math.max(0, delay - 20))));
        const answer = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[],"structuredContent":{"__proto__":{"polluted":${n}},"n":${n},"inner":{"__proto__":[${n}]}}}}`;
        return new Response(answer, { headers: { "content-type": "application/json" } });
      },
    };
  }

  describe("structured results from a 2025-era remote upstream over HTTP", () => {
    it("keep a top-level __proto__ key as an own data property", async () => {
      // The SDK v1 upstream makes createMcpHandler print its deprecation notice (once per
      // isolate): kept out of the output, and nothing else warned.
      const warnings = captureConsole("warn");
      const legacy = rawAnswers("http://upstream-v1.local/mcp");
      const client = await connect(createMcpHandler(codeMcpServer({ upstream: legacy, executor })));
      const code = PROGRAM("structured").replace("structured({})", "structured({ n: 1 })");
      const result = await client.callTool({ name: "code", arguments: { code } });
      await client.close();
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual(
        JSON.parse(
          '{"keys":["__proto__","n","inner"],"innerKeys":["__proto__"],"proto":{"polluted":1},"polluted":"no","plain":true}',
        ),
      );
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      expect(warnings()).toMatch(/^(createMcpHandler: the factory returned an SDK v1 server .*)?$/);
    });

    it("each of several calls in flight at once gets its own answer's key", async () => {
      const warnings = captureConsole("warn");
      const legacy = rawAnswers("http://upstream-v1-overlap.local/mcp");
      const client = await connect(createMcpHandler(codeMcpServer({ upstream: legacy, executor })));
      const code = `async () => {
  const all = await Promise.all([1, 2, 3].map((n) => codemode.structured({ n })));
  return all.map((r) => [Object.keys(r), Object.getOwnPropertyDescriptor(r, "__proto__")?.value?.polluted, r.n, Object.getPrototypeOf(r) === Object.prototype]);
}`;
      const result = await client.callTool({ name: "code", arguments: { code } });
      await client.close();
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual([
        [["__proto__", "n", "inner"], 1, 1, true],
        [["__proto__", "n", "inner"], 2, 2, true],
        [["__proto__", "n", "inner"], 3, 3, true],
      ]);
      expect(warnings()).toMatch(/^(createMcpHandler: the factory returned an SDK v1 server .*)?$/);
    });
  });
});
