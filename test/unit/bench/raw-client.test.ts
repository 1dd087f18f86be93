/**
 * The benchmark's raw client (bench/driver/raw-client.mjs) sends exactly what the SDK clients
 * send for a `tools/call`, so P7's "servers alone" rows time the servers under the requests
 * real clients make. Real SDK clients and servers, in process, through the transports' `fetch`.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { answerIn, rawToolCall } from "../../../bench/driver/raw-client.mjs";

const URL_ = "http://localhost/mcp";
const ARGS = { code: "async () => 1" };

/** An SDK v2 server (both eras) answering `echo` with the length of `code`. */
const v2Handler = createMcpHandler(() => {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ code: z.string() }) }, ({ code }) => ({
    content: [{ type: "text", text: `length ${code.length}` }],
  }));
  return server;
});

/** An SDK v1 server served statelessly with JSON answers, as the bench serves the anchor. */
async function v1Fetch(request: Request): Promise<Response> {
  const server = new V1McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { code: z.string() } }, ({ code }) => ({
    content: [{ type: "text", text: `length ${code.length}` }],
  }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(request);
}

type Sent = { headers: Record<string, string>; body: string };

/** A transport `fetch` that records every POST and hands it to `serve`. */
function recording(serve: (request: Request) => Promise<Response>, sent: Sent[]) {
  return async (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    if (request.method === "POST") {
      const headers = Object.fromEntries(request.headers.entries());
      sent.push({ headers, body: await request.clone().text() });
    }
    return serve(request);
  };
}

/** The recorded `tools/call`, with the raw client's version of it for the same id. */
function pair(sent: Sent[], framing: "2026-07-28" | "2025-11-25") {
  const call = sent.find((s) => JSON.parse(s.body).method === "tools/call");
  if (!call) throw new Error("the client sent no tools/call");
  const raw = rawToolCall(framing, JSON.parse(call.body).id, "echo", ARGS);
  return { call, raw };
}

describe("bench raw client", () => {
  it("frames a 2026-07-28 tools/call exactly as the SDK v2 client does", async () => {
    const sent: Sent[] = [];
    const client = new V2Client(
      { name: "code-mode-bench", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(
      new V2Transport(new URL(URL_), { fetch: recording((r) => v2Handler.fetch(r), sent) }),
    );
    await client.callTool({ name: "echo", arguments: ARGS });
    await client.close();
    const { call, raw } = pair(sent, "2026-07-28");
    expect(raw.headers).toEqual(call.headers);
    expect(JSON.parse(raw.body)).toEqual(JSON.parse(call.body));
  });

  it("frames a 2025-11-25 tools/call exactly as the SDK v1 client does", async () => {
    const sent: Sent[] = [];
    const client = new V1Client({ name: "code-mode-bench", version: "1.0.0" });
    await client.connect(new V1Transport(new URL(URL_), { fetch: recording(v1Fetch, sent) }));
    await client.callTool({ name: "echo", arguments: ARGS });
    await client.close();
    const { call, raw } = pair(sent, "2025-11-25");
    expect(raw.headers).toEqual(call.headers);
    expect(JSON.parse(raw.body)).toEqual(JSON.parse(call.body));
  });

  it.each([
    ["2026-07-28", "application/json", (r: Request) => v2Handler.fetch(r)],
    ["2025-11-25", "text/event-stream", (r: Request) => v2Handler.fetch(r)],
    ["2025-11-25", "application/json", v1Fetch],
  ] as const)("reads the answer to a raw %s call (%s)", async (framing, type, serve) => {
    const { headers, body } = rawToolCall(framing, 7, "echo", ARGS);
    const response = await serve(new Request(URL_, { method: "POST", headers, body }));
    const contentType = response.headers.get("content-type") ?? "";
    expect(contentType).toContain(type);
    const answer = answerIn(contentType, await response.text(), 7);
    expect(answer.result.content).toEqual([{ type: "text", text: "length 13" }]);
  });
});
