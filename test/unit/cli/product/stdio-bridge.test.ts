/**
 * The `--stdio` bridge (cli/product/stdio-bridge.mjs) between a desktop client and the local
 * server, in a real child process driven by a real stdio client (SDK v1, as desktop clients use).
 * Issue #28: a `tools/call` that the local server itself failed (its runtime replaced under the
 * request: the front's 503 JSON-RPC error, or no server at all) reaches the client as a tool error
 * it can show the model, never as a transport failure; other requests keep their JSON-RPC error.
 * The local server here is a plain Node HTTP server answering as the front does.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cutOffBody, cutOffMessage } from "../../../../cli/local-server/front/cut-off-reply.mjs";

const BRIDGE = fileURLToPath(new URL("../../../../cli/product/stdio-bridge.mjs", import.meta.url));
const servers: Server[] = [];
/** The `Authorization` header of every request the stand-in got. */
const authorizations: (string | undefined)[] = [];
/** The launch secret's header of every request the stand-in got (front/bridge-only.mjs). */
const secrets: (string | string[] | undefined)[] = [];
const clients: Client[] = [];
afterEach(async () => {
  authorizations.length = 0;
  secrets.length = 0;
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A stateless MCP endpoint that answers `initialize` and `tools/list`, and cuts off `tools/call`. */
async function localServer(
  refuse?: (message: { id: number; method: string }) => [number, unknown] | undefined,
): Promise<string> {
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    secrets.push(req.headers["x-code-mode-stdio-bridge"]);
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      if (req.method !== "POST") return res.writeHead(405).end();
      const message = JSON.parse(text);
      const reply = (result: unknown) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      if (message.method === "initialize")
        return reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "front-stand-in", version: "1" },
        });
      const refused = message.id === undefined ? undefined : refuse?.(message);
      if (refused)
        return res
          .writeHead(refused[0], { "content-type": "application/json" })
          .end(JSON.stringify(refused[1]));
      if (message.method === "tools/list")
        return reply({ tools: [{ name: "execute", inputSchema: { type: "object" } }] });
      if (message.id === undefined) return res.writeHead(202).end();
      // What the front answers when the host runtime was replaced under the request.
      res
        .writeHead(503, { "content-type": "application/json", "retry-after": "1" })
        .end(cutOffBody([message.id], cutOffMessage("it stopped answering")));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Starts the bridge in a child process toward `url` and connects a stdio client to it. */
async function bridgeTo(
  url: string,
  apiKey?: string,
  headers?: Record<string, string>,
): Promise<Client> {
  const program = `import(${JSON.stringify(BRIDGE)}).then(({ runStdioBridge }) => runStdioBridge({ url: ${JSON.stringify(url)}, apiKey: ${JSON.stringify(apiKey)}, headers: ${JSON.stringify(headers)}, ready: Promise.resolve(), log: (l) => process.stderr.write(l + "\\n"), onClose: () => process.exit(0) }))`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--input-type=module", "-e", program],
    stderr: "pipe",
  });
  const client = new Client({ name: "desktop-stand-in", version: "1" });
  clients.push(client);
  await client.connect(transport);
  return client;
}

describe("the --stdio bridge", () => {
  it("sends the server's key on every request (a --stdio port answers no one else)", async () => {
    const client = await bridgeTo(await localServer(), "launch-key-0123456789");
    await client.listTools();
    await client.callTool({ name: "execute", arguments: { code: "1" } });
    expect(authorizations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(authorizations)).toEqual(new Set(["Bearer launch-key-0123456789"]));
  });

  it("sends the launch's secret header on every request, beside the key", async () => {
    const client = await bridgeTo(await localServer(), "launch-key-0123456789", {
      "x-code-mode-stdio-bridge": "launch-secret-0123456789",
    });
    await client.listTools();
    await client.callTool({ name: "execute", arguments: { code: "1" } });
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    expect(new Set(secrets)).toEqual(new Set(["launch-secret-0123456789"]));
    expect(new Set(authorizations)).toEqual(new Set(["Bearer launch-key-0123456789"]));
  });

  it("sends no Authorization without a key", async () => {
    const client = await bridgeTo(await localServer());
    await client.listTools();
    expect(authorizations.length).toBeGreaterThanOrEqual(2);
    expect(new Set(authorizations)).toEqual(new Set([undefined]));
  });

  it("answers a tools/call cut off by a runtime replacement as a tool error", async () => {
    const client = await bridgeTo(await localServer());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["execute"]);
    const result = await client.callTool({ name: "execute", arguments: { code: "1" } });
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: expect.stringContaining(
            "the runtime was restarted because it stopped answering; retry",
          ),
        },
      ],
    });
  });

  it("answers a tools/call the local server never got as a tool error too", async () => {
    const url = await localServer();
    const client = await bridgeTo(url);
    // The server goes away after the handshake.
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    const result = await client.callTool({ name: "execute", arguments: { code: "1" } });
    expect(result).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: expect.stringContaining("code-mode-mcp: the local server failed") },
      ],
    });
    // Other requests keep the JSON-RPC error.
    await expect(client.listTools()).rejects.toThrow(/local server failed/);
  });

  it("passes a refusal of the local server to the client once: no JSON inside an error string", async () => {
    // The product's HTTP error (a refusal before the MCP handler) and a JSON-RPC error.
    const url = await localServer(({ id, method }) => {
      if (method === "tools/list")
        return [
          404,
          {
            error: {
              code: "code_endpoint_off",
              message: "/mcp/code is off.",
              fix: "Set UPSTREAM_MCP_URL.",
            },
          },
        ];
      if (method === "prompts/list")
        return [403, { jsonrpc: "2.0", id, error: { code: -32000, message: "Forbidden: origin" } }];
      if (method === "tools/call")
        return [401, { error: { code: "unauthorized", message: "No key.", fix: "Send it." } }];
      return undefined;
    });
    const client = await bridgeTo(url);
    const listed = await client.listTools().catch((error: Error) => error);
    expect((listed as Error).message).toBe(
      "MCP error -32603: /mcp/code is off. Fix: Set UPSTREAM_MCP_URL.",
    );
    const prompts = await client.listPrompts().catch((error: Error) => error);
    expect((prompts as Error).message).toBe("MCP error -32000: Forbidden: origin");
    const called = await client.callTool({ name: "execute", arguments: { code: "1" } });
    expect(called).toEqual({
      isError: true,
      content: [{ type: "text", text: "No key. Fix: Send it." }],
    });
  });
});
