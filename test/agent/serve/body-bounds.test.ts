// The sessionful lanes refuse a body past the shape limits (src/mcp/common/shape-refusal.ts, issue
// #40) before anything parses it, on every entry a client body reaches, with real Durable Objects:
// McpAgent.serve's POST to a session's stream, McpAgent.serveSSE's POST (read inside the object),
// and createLegacyMcpHandler's POST within a session. The answer is the stateless lane's: a
// JSON-RPC -32600 with the message's id (a batch gets an array), or -32700 when the body is not
// JSON either; the session goes on serving. And each reads a body in bytes up to its limit: a
// chunked body is not held past it, and characters of 3 bytes count 3.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { createLegacyMcpHandler } from "../../../src/index";
import { initializeBody, rpc, workerFetch } from "../helpers";
import { SseReader } from "../sse";

/** Arrays nested `levels` deep. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** A tools/call of id `id` whose arguments nest 100,000 levels. */
const deepCall = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${nested(100_000)}}}}`;

const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A new McpAgent session on `/notes`: the headers of a request in it. */
async function notesSession(): Promise<Record<string, string>> {
  const initialized = await rpc("/notes", initializeBody());
  expect(initialized.status).toBe(200);
  await initialized.body?.cancel();
  const sessionId = initialized.headers.get("mcp-session-id")!;
  const headers = {
    ...JSON_HEADERS,
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  };
  const ready = await workerFetch("http://localhost/notes", {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(ready.status).toBe(202);
  return headers;
}

describe("McpAgent.serve: a POST to a session's stream", () => {
  it("past the shape limits: -32600 with its id, a batch an array, not JSON -32700; the session serves on", async () => {
    const headers = await notesSession();
    const post = (body: string) =>
      workerFetch("http://localhost/notes", { method: "POST", headers, body });

    const one = await post(deepCall(7));
    expect(one.status).toBe(400);
    expect(await one.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: expect.stringMatching(/nests 100,00\d levels deep/) },
    });

    const batch = await post(`[${deepCall(8)},{"jsonrpc":"2.0","id":9,"method":"ping"}]`);
    expect(batch.status).toBe(400);
    const answers = (await batch.json()) as { id: number; error: { code: number } }[];
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [8, -32600],
      [9, -32600],
    ]);

    const broken = await post(deepCall(10).slice(0, -1));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ id: null, error: { code: -32700 } });

    const listed = await post(JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/list" }));
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"id":11');
  });
});

describe("McpAgent.serveSSE: a POST to the session's message endpoint", () => {
  it("past the shape limits: -32600 with its id, answered by the object before its parse", async () => {
    const stream = await workerFetch("http://localhost/sse");
    const reader = new SseReader(stream.body!);
    const endpoint = new URL((await reader.next())!.data!, "http://localhost");
    const post = (body: string) =>
      workerFetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    expect((await post(JSON.stringify(initializeBody()))).status).toBe(202);

    const refused = await post(deepCall(5));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ id: 5, error: { code: -32600 } });
    const broken = await post(deepCall(6).slice(0, -1));
    expect(await broken.json()).toMatchObject({ id: null, error: { code: -32700 } });
    // The session is still there: a message within the limits is accepted.
    const ping = await post(JSON.stringify({ jsonrpc: "2.0", id: 12, method: "ping" }));
    expect(ping.status).toBe(202);
    await reader.disconnect();
  });
});

describe("createLegacyMcpHandler: a POST within a session", () => {
  it("past the shape limits: -32600 with its id; the session serves on", async () => {
    const server = new McpServer({ name: "shape", version: "1.0.0" });
    const handler = createLegacyMcpHandler(server);
    const initialized = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(initializeBody()),
      }),
    );
    expect(initialized.status).toBe(200);
    await initialized.body?.cancel();
    const headers = {
      ...JSON_HEADERS,
      "mcp-session-id": initialized.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-11-25",
    };
    const post = (body: string) =>
      handler.fetch(new Request("http://localhost/mcp", { method: "POST", headers, body }));
    const refused = await post(deepCall(3));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ id: 3, error: { code: -32600 } });
    const ping = await post(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }));
    expect(ping.status).toBe(200);
    expect(await ping.text()).toContain('"id":4');
  });
});

/** A chunked body (no Content-Length) of `total` bytes of spaces, counting what was pulled. */
function countedStream(total: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
} {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

const LIMIT = 4 * 1024 * 1024;
/** 1.45 million characters of 3 bytes: 4.35 MB, past the 4 MiB limit in bytes, not in characters. */
const wideChars = () =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"${"日".repeat(1_450_000)}"}}}`;

describe("the sessionful lanes read a body in bytes, up to their limit", () => {
  it("McpAgent.serve: a chunked body is not read past 4 MiB; 3-byte characters count 3", async () => {
    const headers = await notesSession();
    const { stream, pulled } = countedStream(16 * 1024 * 1024);
    const chunked = await workerFetch("http://localhost/notes", {
      method: "POST",
      headers,
      body: stream,
    });
    expect(chunked.status).toBe(413);
    // Before: request.text() held all 16 MiB, then compared its length.
    expect(pulled()).toBeLessThanOrEqual(LIMIT + 2 * 64 * 1024);
    const wide = await workerFetch("http://localhost/notes", {
      method: "POST",
      headers,
      body: wideChars(),
    });
    expect(wide.status).toBe(413);
  });

  it("McpAgent.serveSSE: the object reads no more than 4 MiB of a chunked body", async () => {
    const events = await workerFetch("http://localhost/sse");
    const reader = new SseReader(events.body!);
    const endpoint = new URL((await reader.next())!.data!, "http://localhost");
    const { stream, pulled } = countedStream(16 * 1024 * 1024);
    const chunked = await workerFetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(chunked.status).toBe(413);
    // Up to a few chunks the RPC to the object may have in flight.
    expect(pulled()).toBeLessThan(LIMIT + 1024 * 1024);
    const wide = await workerFetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: wideChars(),
    });
    expect(wide.status).toBe(413);
    await reader.disconnect();
  });

  it("createLegacyMcpHandler: a chunked body is not read past 4 MiB; 3-byte characters count 3", async () => {
    const handler = createLegacyMcpHandler(new McpServer({ name: "bytes", version: "1.0.0" }));
    const { stream, pulled } = countedStream(16 * 1024 * 1024);
    const chunked = await handler.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers: JSON_HEADERS, body: stream }),
    );
    expect(chunked.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(LIMIT + 2 * 64 * 1024);
    const wide = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: JSON_HEADERS,
        body: wideChars(),
      }),
    );
    expect(wide.status).toBe(413);
  });
});
