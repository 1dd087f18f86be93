/**
 * 2025-11-25 tasks through `createLegacyMcpHandler`'s `tasks` option: the documented
 * per-request legacy Worker (a new SDK v1 server and handler in every fetch, no storage), a
 * real SDK v1 client over HTTP, and the real task Durable Object (`MCP_TASKS`) holding the run.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createLegacyMcpHandler, setTaskSupport } from "../../../src/mcp/index";
import { text } from "../../helpers/clients/tool-result";
import { LEGACY, legacyRequest } from "./fixtures";

/**
 * What the tool did, read across contexts (the run happens in the task object): plain numbers
 * and flags, never promises shared between the two.
 */
const counter = { ticks: 0, sawAbort: false };

function createServer(): V1McpServer {
  const server = new V1McpServer({ name: "legacy-tasks", version: "1.0.0" });
  const tool = server.registerTool(
    "count",
    { description: "Counts slowly", inputSchema: { n: z.number() } },
    async ({ n }, extra) => {
      for (let i = 0; i < n; i++) {
        if (extra.signal.aborted) {
          counter.sawAbort = true;
          return { content: [{ type: "text", text: "stopped" }] };
        }
        counter.ticks++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { content: [{ type: "text", text: `counted ${n}` }] };
    },
  );
  setTaskSupport(tool, "optional");
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async (args) => ({
    content: [{ type: "text", text: args.text }],
  }));
  return server;
}

const tasks = {
  namespace: () => env.MCP_TASKS,
  name: "legacy-tasks-test",
  server: createServer,
  pollIntervalMs: 50,
};

const CLIENT = { name: "legacy-tasks-raw", version: "1.0.0" };

/** The per-request legacy Worker, as documented: a new server and handler in every fetch. */
const worker = (url: string | URL, init?: RequestInit) =>
  createLegacyMcpHandler(createServer(), { tasks }).fetch(new Request(url, init));

async function v1Client(sessionId?: string) {
  const client = new Client({ name: "v1-legacy-tasks", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: worker as never,
    ...(sessionId !== undefined && { sessionId }),
  });
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}

async function startTask(client: Client, n: number): Promise<string> {
  for await (const message of client.experimental.tasks.callToolStream(
    { name: "count", arguments: { n } },
    CallToolResultSchema,
  )) {
    if (message.type === "taskCreated") return message.task.taskId;
    throw new Error(`expected a task, got ${JSON.stringify(message)}`);
  }
  throw new Error("the call ended without a task");
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`not reached: ${JSON.stringify(await read())}`);
}

describe("createLegacyMcpHandler with tasks (2025-11-25, SDK v1 server and client)", () => {
  // With `tasks`, the task layer reads each 2025-era POST's body to find task requests; what it
  // read goes on to the SDK as parsedBody (read and parsed once). The SDK's own checks stay.
  it("a body the task layer read goes on to the SDK: calls answer, its checks still apply", async () => {
    const post = (body: string, type = "application/json") =>
      createLegacyMcpHandler(createServer(), { tasks }).fetch(
        legacyRequest(body, { "content-type": type, "mcp-protocol-version": LEGACY }),
      );
    // This handler serves nothing before `initialize`.
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT },
    });
    const answered = await post(initialize);
    expect(answered.status).toBe(200);
    expect(await answered.text()).toMatch(/"id":3.*"protocolVersion"|"protocolVersion".*"id":3/s);
    expect((await post(initialize, "text/plain")).status).toBe(415);
    const unparseable = await post("{ not json");
    expect(unparseable.status).toBe(400);
    expect(await unparseable.text()).toContain("-32700");
  });

  it("a body past the shape limits is refused, not parsed by the task layer and passed on", async () => {
    // Within the task layer's 64 KiB read, yet 30,000 levels deep. Before: the task layer parsed
    // it whole and handed it on as parsedBody, which the transport takes without its own check.
    const deep = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":${"[".repeat(30_000)}${"]".repeat(30_000)}}}}`;
    expect(deep.length).toBeLessThan(65_536);
    const response = await createLegacyMcpHandler(createServer(), { tasks }).fetch(
      legacyRequest(deep, { "mcp-protocol-version": LEGACY }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      id: 4,
      error: { code: -32600, message: expect.stringMatching(/nests 30,00\d levels deep/) },
    });
  });

  it("declares tasks and lists the marked tool with execution.taskSupport", async () => {
    const { client } = await v1Client();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: {} } });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toEqual({ count: "optional", echo: "forbidden" });
    await client.close();
  });

  it("the run outlives the request and the client: another connection polls and reads the result", async () => {
    counter.ticks = 0;
    const first = await v1Client();
    const taskId = await startTask(first.client, 20);
    await first.client.close(); // the client leaves as soon as it has the task

    const second = await v1Client();
    const done = await until(
      () => second.client.experimental.tasks.getTask(taskId),
      (task) => task.status !== "working",
    );
    expect(done.status).toBe("completed");
    const result = await second.client.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    );
    expect(text(result)).toBe("counted 20");
    expect(counter.ticks).toBe(20);
    await second.client.close();
  });

  it("tasks/cancel reaches the tool's signal: the run stops", async () => {
    counter.ticks = 0;
    counter.sawAbort = false;
    const { client } = await v1Client();
    const taskId = await startTask(client, 2000);
    await until(
      async () => counter.ticks,
      (ticks) => ticks >= 3,
    );
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe("cancelled");
    await until(
      async () => counter.sawAbort,
      (saw) => saw,
    );
    const atStop = counter.ticks;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counter.ticks).toBe(atStop);
    expect(atStop).toBeLessThan(2000);
    await expect(
      client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
    ).rejects.toThrow(/was cancelled; it has no result/);
    await client.close();
  });

  it("without params.task, and for unmarked tools, calls answer as before", async () => {
    const { client } = await v1Client();
    expect(text(await client.callTool({ name: "count", arguments: { n: 2 } }))).toBe("counted 2");
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
    await client.close();
  });

  it("a tool not marked for tasks refuses params.task with an error naming the fix", async () => {
    const { client } = await v1Client();
    const messages: { type: string; error?: { code: number; message: string } }[] = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "echo", arguments: { text: "hi" } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message as never);
    }
    expect(messages).toHaveLength(1);
    expect(messages[0]!.error?.code).toBe(-32601);
    expect(messages[0]!.error?.message).toMatch(
      /"echo" does not run as a task.*without params.task/,
    );
    await client.close();
  });

  it("refuses tasks together with a given transport, saying which to drop", () => {
    const server = createServer();
    const handler = createLegacyMcpHandler(server);
    expect(() => createLegacyMcpHandler(server, { tasks, transport: handler.transport })).toThrow(
      /either `tasks` or `transport`/,
    );
  });
});
