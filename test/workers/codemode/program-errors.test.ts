/**
 * What a program's own mistakes read like in the tool result (issue #42): `fetch()` names what to
 * call instead (workerd's refusal points to "bindings in env", which a program has none of), and a
 * syntax error gives its position once.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { createMcpHandler } from "../../../src/index";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";
import { cloudflare, cloudflareUpstream } from "./cloudflare";

const FETCH = `async () => { try { await fetch("https://example.com"); return "sent"; } catch (e) { return e.name + ": " + e.message; } }`;

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const upstream = cloudflareUpstream();
  const openapi = createMcpHandler(
    openApiMcpServer({ spec: cloudflare, executor, request: upstream.handler }),
  );

  function tools(): McpServer {
    const server = new McpServer({ name: "tools", version: "1.0.0" });
    server.registerTool("list_projects", { description: "Lists projects" }, async () => ({
      content: [{ type: "text", text: "[]" }],
    }));
    return server;
  }
  const code = createMcpHandler(codeMcpServer({ upstream: { server: tools }, executor }));

  async function call(handler: typeof code, name: string, program: string) {
    const client = await connect(handler);
    try {
      return await client.callTool({ name, arguments: { code: program } });
    } finally {
      await client.close();
    }
  }

  describe("fetch() in a program", () => {
    it("points an execute program to codemode.request()", async () => {
      const result = await call(openapi, "execute", FETCH);
      expect(text(result)).toBe(
        "TypeError: fetch() is not available here: programs have no network access. Call the API with codemode.request({ method, path, query, body }) instead; the host adds the credentials.",
      );
      expect(upstream.seen).toEqual([]);
    });

    it("points a search program to the functions it has", async () => {
      const result = await call(openapi, "search", FETCH);
      expect(text(result)).toMatch(
        /^TypeError: fetch\(\) is not available here: programs have no network access\. Use the functions this tool provides instead \(.*codemode\.spec\(\).*\)/,
      );
      expect(text(result)).not.toMatch(/env/);
    });

    it("points a code program to the upstream's tool functions", async () => {
      const result = await call(code, "code", FETCH);
      expect(text(result)).toMatch(
        /Use the functions this tool provides instead \(.*codemode\.list_projects\(\)/,
      );
    });
  });

  it("a syntax error gives its position once", async () => {
    const result = await call(openapi, "execute", "async () => {\n  return 1 +;\n}");
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("ERROR: SyntaxError: Unexpected token (line 2, column 13)");
  });
});
