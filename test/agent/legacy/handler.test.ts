// createLegacyMcpHandler (2025-era sessions on WorkerTransport) with real SDK v1 clients.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLegacyMcpHandler,
  DurableObjectEventStore,
  type LegacyMcpHandler,
  type SessionRecord,
} from "../../../src/index";
import { initializeBody, text } from "../helpers";
import { memoryStorage } from "../memory-storage";
import { messageOf, SseReader } from "../sse";

const URL_LOCAL = "http://localhost/mcp";

function buildServer() {
  const server = new McpServer({ name: "legacy", version: "1.0.0" });
  server.tool("echo", { text: z.string() }, async ({ text: value }) => ({
    content: [{ type: "text", text: value }],
  }));
  server.tool("ask", async (extra) => {
    const answer = await server.server.elicitInput(
      {
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      },
      { relatedRequestId: extra.requestId },
    );
    return { content: [{ type: "text", text: `hello ${String(answer.content?.name)}` }] };
  });
  server.tool("caps", async () => ({
    content: [{ type: "text", text: JSON.stringify(server.server.getClientCapabilities()) }],
  }));
  server.tool("count", { n: z.number() }, async ({ n }, extra) => {
    for (let i = 1; i <= n; i++) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: "p", progress: i },
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { content: [{ type: "text", text: `counted ${n}` }] };
  });
  server.tool("gated", async (extra) => {
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: "g", progress: 1 },
    });
    await gate.promise;
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: "g", progress: 2 },
    });
    return { content: [{ type: "text", text: "through the gate" }] };
  });
  return server;
}

/** A promise and its resolve (the pool's TypeScript target has no Promise.withResolvers). */
function opening() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Holds the `gated` tool between its two progress events until a test opens it. */
let gate = opening();

async function clientFor(fetch: (request: Request) => Promise<Response>, elicitation = false) {
  const client = new Client(
    { name: "legacy-client", version: "1.0.0" },
    {
      capabilities: elicitation ? { elicitation: { form: {} } } : {},
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
    fetch: (url, init) => fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return { client, transport };
}

/** A raw `tools/call` POST in a session. */
function toolCall(headers: Record<string, string>, id: number, name: string, args: object) {
  return new Request(URL_LOCAL, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
}

/**
 * A session served by a fresh server per request: its record in `storage`, its events in
 * in-memory Durable Object storage.
 */
function perRequestSession() {
  const state: { record?: SessionRecord } = {};
  const storage = {
    get: () => state.record,
    set: (value: SessionRecord) => void (state.record = value),
  };
  const events = memoryStorage();
  const handle = (request: Request) =>
    createLegacyMcpHandler(buildServer(), {
      storage,
      eventStore: new DurableObjectEventStore(events),
    }).fetch(request);
  /** The headers of a raw request in that session, once it has begun. */
  const headers = () => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": state.record!.sessionId,
    "mcp-protocol-version": "2025-11-25",
  });
  return { state, events, handle, headers };
}

describe("createLegacyMcpHandler", () => {
  // In-process, every request shares the test's I/O context, so the elicitation answer can reach
  // the asking request's stream; a plain Worker forbids that across requests (see the TSDoc of
  // createLegacyMcpHandler and test/agent/conformance-legacy): this covers the protocol path only.
  it("persistent: a 2025-era session with tools and a server-to-client elicitation", async () => {
    const handler = createLegacyMcpHandler(buildServer());
    const { client, transport } = await clientFor((request) => handler.fetch(request), true);
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    // Without storage the id is a random UUID plus the initialize record (see session-id-record.ts).
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}\.[\w-]+$/);
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
    expect(text(await client.callTool({ name: "ask", arguments: {} }))).toBe("hello Ada");

    const wrong = await handler.fetch(
      new Request(URL_LOCAL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": "not-this-session",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      }),
    );
    expect(wrong.status).toBe(404);
    await transport.terminateSession();
    await client.close();
  });

  it("refuses a server that is already connected, explaining what to do", async () => {
    const server = buildServer();
    await createLegacyMcpHandler(server).transport.start();
    expect(() => createLegacyMcpHandler(server)).toThrow(/already connected.*new server/s);
  });

  it("per request: a fresh server per request restores the session from storage and replays events", async () => {
    const { state, events, handle, headers: sessionHeaders } = perRequestSession();
    const { client, transport } = await clientFor(handle, true);
    expect(state.record?.sessionId).toBe(transport.sessionId);
    expect(text(await client.callTool({ name: "echo", arguments: { text: "again" } }))).toBe(
      "again",
    );
    expect(JSON.parse(text(await client.callTool({ name: "caps", arguments: {} })))).toEqual({
      elicitation: { form: {} },
    });
    await client.close();

    // Raw: drop a counting stream after two progress events and resume it on a new server.
    const headers = sessionHeaders();
    const post = await handle(toolCall(headers, 7, "count", { n: 5 }));
    const reader = new SseReader(post.body!);
    let lastId: string | undefined;
    let progress = 0;
    while (progress < 2) {
      const frame = (await reader.next())!;
      lastId = frame.id ?? lastId;
      if (messageOf(frame) !== undefined) progress++;
    }
    await reader.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const resumed = await handle(
      new Request(URL_LOCAL, { headers: { ...headers, "last-event-id": lastId! } }),
    );
    const rest = (await new SseReader(resumed.body!).rest()).map(messageOf).filter(Boolean);
    expect(rest.slice(0, -1).map((message) => message!.params.progress)).toEqual([3, 4, 5]);
    expect(rest.at(-1)).toMatchObject({ id: 7, result: { content: [{ text: "counted 5" }] } });
    expect([...(await events.list({ prefix: "mcp:event:" })).keys()]).toEqual([]);
  });

  it("per request: a resume that comes while the tool still runs in the other server gets the rest as it comes", async () => {
    gate = opening();
    const { events, handle, headers: sessionHeaders } = perRequestSession();
    const { client } = await clientFor(handle);
    await client.close();
    const headers = sessionHeaders();
    const post = await handle(toolCall(headers, 9, "gated", {}));
    const reader = new SseReader(post.body!);
    let lastId: string | undefined;
    for (;;) {
      const frame = (await reader.next())!;
      lastId = frame.id ?? lastId;
      if (messageOf(frame) !== undefined) break;
    }
    await reader.disconnect();
    // The resume reaches a fresh server while the tool waits in the first one: before, its
    // stream replayed what was stored and then waited forever (the SDK waits for live events).
    const resumed = await handle(
      new Request(URL_LOCAL, { headers: { ...headers, "last-event-id": lastId! } }),
    );
    expect(resumed.status).toBe(200);
    gate.resolve();
    const rest = (await new SseReader(resumed.body!).rest()).map(messageOf).filter(Boolean);
    expect(rest.map((message) => message!.params?.progress ?? message!.result)).toEqual([
      2,
      { content: [{ type: "text", text: "through the gate" }] },
    ]);
    expect([...(await events.list({ prefix: "mcp:event:" })).keys()]).toEqual([]);
  }, 10_000);

  it("serves only its route and applies the Origin guard", async () => {
    const handler: LegacyMcpHandler = createLegacyMcpHandler(buildServer(), { route: "/legacy" });
    const elsewhere = await handler.fetch(new Request("http://localhost/mcp"));
    expect(elsewhere.status).toBe(404);
    const evil = await handler.fetch(
      new Request("http://localhost/legacy", {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "application/json" },
        body: JSON.stringify(initializeBody()),
      }),
    );
    expect(evil.status).toBe(403);
  });
});
