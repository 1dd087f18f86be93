/**
 * `/mcp/code` with an upstream that echoes the credential it was sent, on every channel a tool
 * result has: text, `isError` text, structured content (keys and values), resource text and
 * base64 blobs, image data, a failed call's error message, log notifications. Hostile programs
 * decode and transform what they get (base64, UTF-16, reversed, split) and return, log and throw
 * it: the credential must be gone before the sandbox sees it, so no form of it reaches the client.
 */
import {
  LOG_LEVEL_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { CodeModeError, createMcpHandler } from "../../../../src/index";
import { CANARY } from "../cloudflare";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { leakedForms, EXFILTRATE } from "./leak-probe";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const AUTH = `Bearer ${CANARY}`;

  const bytesOf = (s: string, encoding: "utf8" | "utf16le" | "utf16be") => {
    if (encoding === "utf8") return new TextEncoder().encode(s);
    const out = new Uint8Array(s.length * 2);
    for (let i = 0; i < s.length; i++) {
      const [lo, hi] = [s.charCodeAt(i) & 0xff, s.charCodeAt(i) >> 8];
      out.set(encoding === "utf16le" ? [lo, hi] : [hi, lo], i * 2);
    }
    return out;
  };
  const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

  /** An upstream MCP server that puts the `authorization` header it received in every answer. */
  function echoServer(auth: string): McpServer {
    const server = new McpServer(
      { name: "echo", version: "1.0.0" },
      { capabilities: { logging: {} } },
    );
    const blob = new Uint8Array([
      0,
      1,
      2,
      ...bytesOf(auth, "utf16le"),
      9,
      ...bytesOf(auth, "utf8"),
    ]);
    server.registerTool("echo_text", { description: `Echoes. Example: ${auth}` }, async () => ({
      content: [{ type: "text", text: `you sent ${auth}` }],
    }));
    server.registerTool("echo_error", { description: "Fails, echoing." }, async () => ({
      isError: true,
      content: [{ type: "text", text: `rejected credential ${auth}` }],
    }));
    server.registerTool(
      "echo_structured",
      {
        description: "Structured echo.",
        outputSchema: z.object({ seen: z.record(z.string(), z.string()) }),
      },
      async () => ({
        content: [{ type: "text", text: "see structuredContent" }],
        structuredContent: { seen: { authorization: auth, [CANARY]: "the key is the token" } },
      }),
    );
    server.registerTool("echo_resources", { description: "Echoes in resources." }, async () => ({
      content: [
        {
          type: "resource",
          resource: { uri: "mem://blob", mimeType: "application/x-dump", blob: base64(blob) },
        },
        {
          type: "resource",
          resource: { uri: `mem://text?auth=${encodeURIComponent(auth)}`, text: auth },
        },
        { type: "image", mimeType: "image/png", data: base64(blob) },
        { type: "audio", mimeType: "audio/wav", data: base64(bytesOf(auth, "utf16be")) },
      ],
    }));
    server.registerTool("echo_protocol_error", { description: "A JSON-RPC error." }, async () => {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `token ${auth} is not allowed here`);
    });
    server.registerTool("echo_log", { description: "Logs and reports progress." }, async (ctx) => {
      await ctx.mcpReq.log("info", { auth, [CANARY]: 1 }, `logger ${CANARY}`);
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken !== undefined)
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress: 1, total: 2, message: `using ${auth}` },
        });
      return { content: [{ type: "text", text: '"logged"' }] };
    });
    server.registerTool("echo_thrown", { description: "Throws." }, async () => {
      throw new Error(`upstream crashed with ${auth}`);
    });
    return server;
  }

  /** The echo server over real Streamable HTTP, with the credential sent as a header. */
  function echoUpstream(): CodeMcpServerOptions["upstream"] {
    return {
      url: "http://echo.local/mcp",
      headers: { authorization: AUTH },
      fetch: (url: string | URL | Request, init?: RequestInit) => {
        const sent = new Headers(init?.headers).get("authorization") ?? "";
        return direct(createMcpHandler(() => echoServer(sent)))(url, init);
      },
    };
  }

  async function runCode(code: string, extra: Partial<CodeMcpServerOptions> = {}) {
    const factory = codeMcpServer({
      upstream: echoUpstream(),
      executor,
      secrets: [AUTH, CANARY],
      ...extra,
    } as CodeMcpServerOptions);
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: "code", arguments: { code } });
    await client.close();
    return text(result);
  }

  describe("codeMcpServer({ secrets }): an echoed upstream credential never enters the sandbox", () => {
    it.each([
      ["text", "codemode.echo_text({})"],
      ["isError text", "codemode.echo_error({})"],
      ["structured content (keys and values)", "codemode.echo_structured({})"],
      ["resource text, uri and blobs, image and audio data", "codemode.echo_resources({})"],
      ["a JSON-RPC error of the call", "codemode.echo_protocol_error({})"],
      ["an error the upstream tool threw", "codemode.echo_thrown({})"],
      [
        "the tool list (describe and search)",
        'codemode.$describe("echo_text") + JSON.stringify(await codemode.$search("echo"))',
      ],
    ])("through %s", async (_channel, call) => {
      const out = await runCode(EXFILTRATE.replace("CALL", `await ${call}`));
      expect(out).toContain("probe ran");
      expect(leakedForms(out, [CANARY])).toEqual([]);
    });

    it("keeps it out of forwarded log messages and progress notifications", async () => {
      const factory = codeMcpServer({
        upstream: echoUpstream(),
        executor,
        secrets: [AUTH, CANARY],
      });
      const client = await connect(createMcpHandler(factory));
      const seen: unknown[] = [];
      client.setNotificationHandler("notifications/message", (n) => void seen.push(n.params));
      const result = await client.callTool(
        {
          name: "code",
          arguments: { code: "return await codemode.echo_log({})" },
          _meta: { [LOG_LEVEL_META_KEY]: "info" },
        },
        { onprogress: (p) => void seen.push(p) },
      );
      await client.close();
      expect(text(result)).toBe("logged");
      expect(JSON.stringify(seen)).toContain("[REDACTED]");
      expect(seen.length).toBe(2);
      expect(leakedForms(JSON.stringify(seen), [CANARY])).toEqual([]);
    });

    it("keeps the credential out of the tool description the client reads", async () => {
      const factory = codeMcpServer({
        upstream: echoUpstream(),
        executor,
        secrets: [AUTH, CANARY],
      });
      const client = await connect(createMcpHandler(factory));
      const { tools } = await client.listTools();
      await client.close();
      expect(tools[0]!.description).toContain("Echoes. Example: [REDACTED]");
      expect(leakedForms(JSON.stringify(tools), [CANARY])).toEqual([]);
    });

    it("keeps the structure of what it redacts, so programs still work", async () => {
      const out = await runCode(`async () => {
      const s = await codemode.echo_structured({});
      const r = await codemode.echo_resources({});
      return { keys: Object.keys(s.seen).sort(), types: r.map((b) => b.type), mime: r[0].resource.mimeType, auth: s.seen.authorization };
    }`);
      expect(JSON.parse(out)).toEqual({
        keys: ["[REDACTED]", "authorization"],
        types: ["resource", "resource", "image", "audio"],
        mime: "application/x-dump",
        auth: "[REDACTED]",
      });
    });

    it("refuses a secret too short to redact safely", () => {
      const build = () => codeMcpServer({ upstream: echoUpstream(), executor, secrets: ["abc"] });
      expect(build).toThrow(CodeModeError);
      expect(build).toThrow(/at least 8 characters/);
    });
  });
});
