/**
 * What an upstream tool returns reaches the sandbox unchanged (issue #16): keys such as
 * `__proto__` and `constructor` stay own data properties at every depth, through the MCP client,
 * the host, the wire codec and back out in the result. Run against an in-memory upstream and a
 * remote one over HTTP, as structured content and as JSON text.
 *
 * Known gap, not ours: an SDK v2 `McpServer` instance connected in memory speaks the 2025 era
 * (`server.connect()`), and that path of the SDK server drops a top-level `__proto__` key from
 * `structuredContent` before sending (seen on its transport). The same server over HTTP
 * (2026-07-28) keeps it, so that combination is left out here and noted for the team.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../../helpers/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { connect, direct } from "../../../helpers/mcp-client";
import { text } from "../../../helpers/tool-result";

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
});
