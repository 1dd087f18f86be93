/**
 * Tool input properties named `__proto__`, `constructor` and `prototype`: JavaScript gives these
 * names meanings of their own (an assignment to `__proto__` sets the prototype and adds no key),
 * so every copy of a schema or of arguments on the way is a chance to lose them. The `code`
 * tool's declaration must show each with its schema's type, and a call must hand each argument
 * to the upstream intact: over Streamable HTTP to a remote upstream, and over the in-memory
 * transport to an in-process one, each an SDK `McpServer` listing the schema.
 *
 * The upstream answers `tools/call` from the message as it arrived on its wire (the HTTP body;
 * the in-memory transport's message): the SDK's own request parsing (zod) drops a `__proto__`
 * argument before a tool handler sees it, which no client can prevent.
 */
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer, type CodeMcpServerOptions } from "../../../src/codemode/code-mcp-server";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { captureConsole } from "../../helpers/console-capture";
import { connect, direct } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

const executors = {
  "worker-loader": new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
  "shared-worker": new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
};

// JSON text: in an object literal `__proto__:` would set the prototype, not add a property.
const SCHEMA = JSON.parse(
  '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"},' +
    '"prototype":{"type":"boolean"},"plain":{"type":"string"}},' +
    '"required":["__proto__","constructor","prototype"]}',
) as Record<string, unknown>;
const ARGUMENTS = '{"__proto__":"p","constructor":7,"prototype":true,"plain":"x"}';
const DECLARED = `interface KeysInput {
  "__proto__": string;
  constructor: number;
  prototype: boolean;
  plain?: string;
}`;
const EXPECTED = [
  ["__proto__", "p"],
  ["constructor", 7],
  ["plain", "x"],
  ["prototype", true],
];

/** The upstream: lists `keys` with {@link SCHEMA}. */
function upstream(): McpServer {
  const server = new McpServer({ name: "keys", version: "1.0.0" });
  server.registerTool(
    "keys",
    {
      description: "Echoes its arguments' own properties.",
      inputSchema: fromJsonSchema<Record<string, unknown>>(SCHEMA),
    },
    async () => ({ content: [{ type: "text", text: "not reached" }] }),
  );
  return server;
}

/** The answer to a `tools/call` message as it arrived: its arguments' own properties. */
function echoOf(message: { id: number | string; params: { arguments: object } }) {
  const args = message.params.arguments;
  const own = Object.getOwnPropertyNames(args)
    .toSorted()
    .map((key) => [key, Object.getOwnPropertyDescriptor(args, key)!.value as unknown]);
  const result = { content: [{ type: "text", text: JSON.stringify(own) }], resultType: "complete" };
  return { jsonrpc: "2.0" as const, id: message.id, result };
}

/** The same upstream on SDK v1, which speaks 2025-era MCP only (`initialize`, then lists). */
function v1Upstream(): V1Server {
  const server = new V1Server({ name: "keys", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "keys", description: "Echoes its arguments' own properties.", inputSchema: SCHEMA },
    ],
  }));
  return server;
}

/** A remote upstream over HTTP; `tools/call` is answered from the body it was sent. */
function remote(server: () => McpServer | V1Server = upstream): CodeMcpServerOptions["upstream"] {
  const handler = direct(createMcpHandler(server as () => McpServer));
  return {
    url: "http://keys.local/mcp",
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? init.body : "";
      const message = body.startsWith("{") ? (JSON.parse(body) as { method?: string }) : {};
      if (message.method === "tools/call") return Response.json(echoOf(message as never));
      return handler(url, init);
    },
  };
}

/**
 * An in-process upstream; `tools/call` is answered from the message its transport received.
 * @param arrived - collects each `tools/call` message that reached it
 */
function inProcess(arrived: unknown[] = []): McpServer {
  const server = upstream();
  const connectServer = server.connect.bind(server);
  server.connect = async (transport) => {
    await connectServer(transport);
    const deliver = transport.onmessage!;
    // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
    transport.onmessage = (message, extra) => {
      if ("method" in message && message.method === "tools/call") {
        arrived.push(message);
        void transport.send(echoOf(message as never));
      } else deliver(message, extra);
    };
  };
  return server;
}

async function declarationAndCall(
  source: CodeMcpServerOptions["upstream"],
  executor: (typeof executors)[keyof typeof executors],
) {
  const client = await connect(createMcpHandler(codeMcpServer({ upstream: source, executor })));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({
      name: "code",
      arguments: { code: `async () => codemode.keys(JSON.parse(${JSON.stringify(ARGUMENTS)}))` },
    });
    return { description: tools[0]!.description!, result };
  } finally {
    await client.close();
  }
}

describe.each(Object.keys(executors) as (keyof typeof executors)[])(
  "properties named __proto__, constructor and prototype (%s)",
  (kind) => {
    it.each([
      ["a remote upstream over HTTP (2026-07-28)", () => remote()],
      ["a remote upstream over HTTP (2025-11-25)", () => remote(v1Upstream)],
      ["an in-process McpServer instance", () => inProcess()],
      ["an in-process { server } factory", () => ({ server: () => inProcess() })],
    ])("are exact in the declaration and reach %s intact", async (_, make) => {
      // The SDK v1 upstream makes createMcpHandler print its deprecation notice (once per
      // isolate, so maybe in an earlier file): kept out of the output, and nothing else warned.
      const warnings = captureConsole("warn");
      const { description, result } = await declarationAndCall(
        make() as CodeMcpServerOptions["upstream"],
        executors[kind],
      );
      expect(description).toContain(DECLARED);
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual(EXPECTED);
      expect(warnings()).toMatch(/^(createMcpHandler: the factory returned an SDK v1 server .*)?$/);
    });

    it("a __proto__ argument off its schema is refused before the upstream", async () => {
      const arrived: unknown[] = [];
      const client = await connect(
        createMcpHandler(
          codeMcpServer({ upstream: inProcess(arrived), executor: executors[kind] }),
        ),
      );
      const bad = '{"__proto__":5,"constructor":7,"prototype":true}';
      const result = await client.callTool({
        name: "code",
        arguments: { code: `async () => codemode.keys(JSON.parse(${JSON.stringify(bad)}))` },
      });
      await client.close();
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/__proto__/);
      expect(arrived).toEqual([]);
    });
  },
);
