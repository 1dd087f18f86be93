// McpAgent.serveSSE: the HTTP+SSE transport of 2024-11-05 with a real SDK v1 SSE client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { initializeBody, text, workerFetch } from "../helpers";
import { messageOf, SseReader } from "../sse";

/** Connects a real SDK v1 client over the 2024-11-05 HTTP+SSE transport. */
async function connectSse(path = "/sse", capabilities: Record<string, unknown> = {}) {
  const client = new Client(
    { name: "sse-test-client", version: "1.0.0" },
    { capabilities, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new SSEClientTransport(new URL(`http://localhost${path}`), {
    fetch: workerFetch,
    eventSourceInit: { fetch: workerFetch },
  });
  await client.connect(transport);
  const endpoint = (transport as unknown as { _endpoint: URL })._endpoint;
  const sessionId = endpoint.searchParams.get("sessionId")!;
  const stub = () => env.MCP_OBJECT.get(env.MCP_OBJECT.idFromString(sessionId));
  return { client, transport, endpoint, stub };
}

describe("McpAgent.serveSSE (HTTP+SSE, 2024-11-05)", () => {
  it("GET opens the event stream; its first event is endpoint with the POST URL", async () => {
    const response = await workerFetch("http://localhost/sse", {
      headers: { accept: "text/event-stream" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = new SseReader(response.body!);
    const first = await reader.next();
    expect(first?.data).toMatch(/^\/sse\/message\?sessionId=[0-9a-f]{64}$/);
    expect(first?.event).toBe("endpoint");
    await reader.disconnect();
  });

  it("a real SSEClientTransport lists and calls tools; state persists across calls", async () => {
    const { client } = await connectSse();
    expect(client.getServerVersion()?.name).toBe("DefaultBinding");
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).toSorted()).toEqual(["add", "announce", "whoami"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 4 } }))).toBe("total 4");
    expect(text(await client.callTool({ name: "add", arguments: { a: 5 } }))).toBe("total 9");
    await client.close();
  });

  it("the object holds no stream between messages: it hibernates and wakes with its state", async () => {
    const { client, stub: stubOf } = await connectSse();
    const stub = stubOf();
    expect(text(await client.callTool({ name: "add", arguments: { a: 1 } }))).toBe("total 1");
    // Only the hibernatable socket ties the idle object to its client.
    expect(await runInDurableObject(stub, (_agent, state) => state.getWebSockets().length)).toBe(1);
    await evictDurableObject(stub);
    // A fresh instance answers on the same event stream, with the session and state restored.
    expect(text(await client.callTool({ name: "add", arguments: { a: 2 } }))).toBe("total 3");
    expect(client.getServerVersion()?.name).toBe("DefaultBinding");
    await evictDurableObject(stub);
    expect((await client.listTools()).tools).toHaveLength(3);
    await client.close();
  });

  it("serves an SDK v2 server too (elicitation round trip over the stream and POSTs)", async () => {
    const { client } = await connectSse("/v2-sse", { elicitation: { form: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi #1");
    expect(text(await client.callTool({ name: "echo", arguments: { text: "ho" } }))).toBe("ho #2");
    expect(text(await client.callTool({ name: "ask", arguments: {} }))).toBe("hello Ada");
    await client.close();
  });

  it("a POST is acknowledged 202 as agents answers it: text/event-stream, body Accepted", async () => {
    const stream = await workerFetch("http://localhost/sse");
    const reader = new SseReader(stream.body!);
    const endpoint = new URL((await reader.next())!.data!, "http://localhost");
    const accepted = await workerFetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(initializeBody()),
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("content-type")).toBe("text/event-stream");
    expect(accepted.headers.get("cache-control")).toBe("no-cache");
    expect(await accepted.text()).toBe("Accepted");
    await reader.disconnect();
  });

  it("an unknown sessionId gets 404 with a message saying what to do", async () => {
    const unknown = env.MCP_OBJECT.newUniqueId().toString();
    for (const sessionId of [unknown, "not-an-id"]) {
      const response = await workerFetch(`http://localhost/sse/message?sessionId=${sessionId}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/^Session not found: .*Open a new .*GET/);
    }
  });

  it("the client dropping the stream ends the session: storage freed, id then unknown", async () => {
    const stream = await workerFetch("http://localhost/sse-fast");
    const reader = new SseReader(stream.body!);
    const endpoint = new URL((await reader.next())!.data!, "http://localhost");
    const post = (body: unknown) =>
      workerFetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const accepted = await post(initializeBody());
    expect(accepted.status).toBe(202);
    // Keep-alive comments (every 20 ms here) may come first.
    let frame = await reader.next();
    while (frame?.data === undefined) frame = await reader.next();
    expect(messageOf(frame)?.result?.serverInfo?.name).toBe("DefaultBinding");
    const id = env.MCP_OBJECT.idFromString(endpoint.searchParams.get("sessionId")!);
    const stub = env.MCP_OBJECT.get(id);
    const stored = () =>
      runInDurableObject(stub, (_agent, state) => state.storage.kv.get("mcp:sse"));
    expect(await stored()).toBeDefined();

    await reader.disconnect();
    await expect.poll(stored, { timeout: 10_000 }).toBeUndefined();
    const late = await post({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    expect(late.status).toBe(404);
  });
});
