/**
 * Upstreams as hostile input: an upstream MCP server's tool names, schemas, descriptions and
 * results are another party's text. What it sends must not carry the credential into the
 * sandbox on a field redaction skipped (a block's `mimeType`, its unknown keys, `_meta` keys).
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../src/codemode/code-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { CANARY } from "./cloudflare";
import { connect, direct } from "../../helpers/mcp-client";
import { text } from "../../helpers/tool-result";
import { leakedForms, EXFILTRATE } from "./leak-probe";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
const AUTH = `Bearer ${CANARY}`;

/** An upstream that echoes the `authorization` it got in the fields of its content blocks. */
function fieldEchoServer(auth: string): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo_fields", { description: "Echoes in block fields." }, async () => ({
    content: [
      { type: "image", mimeType: auth, data: "" },
      { type: "text", text: "meta", _meta: { [CANARY]: "key" } },
      {
        type: "resource",
        resource: { uri: "mem://x", mimeType: `text/${CANARY}`, text: "x" },
      },
      { type: "text", text: "extra", [CANARY]: "an unknown key" } as never,
    ],
  }));
  return server;
}

async function runEcho(code: string, upstream: CodeMcpServerOptions["upstream"]) {
  const factory = codeMcpServer({ upstream, executor, secrets: [AUTH, CANARY] });
  const client = await connect(createMcpHandler(factory));
  const result = await client.callTool({ name: "code", arguments: { code } });
  await client.close();
  return text(result);
}

describe("an echoed credential in a content block's fields never enters the sandbox", () => {
  it.each([
    [
      "a remote upstream",
      () => ({
        url: "http://echo.local/mcp",
        headers: { authorization: AUTH },
        fetch: (url: string | URL | Request, init?: RequestInit) =>
          direct(
            createMcpHandler(() =>
              fieldEchoServer(new Headers(init?.headers).get("authorization") ?? ""),
            ),
          )(url, init),
      }),
    ],
    ["an in-process upstream", () => fieldEchoServer(AUTH)],
  ])("from %s (mimeType, _meta keys, unknown keys)", async (_kind, upstream) => {
    const out = await runEcho(
      EXFILTRATE.replace("CALL", "await codemode.echo_fields({})"),
      upstream(),
    );
    expect(out).toContain("probe ran");
    expect(leakedForms(out, [CANARY])).toEqual([]);
  });
});
