// A plain 2025-era ping is answered without a server (src/mcp/stateless/ping-answer.ts); any
// other ping, and every other request, still reaches the factory and the SDK.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createMcpHandler } from "../../../src/index";
import { buildServer, LEGACY, legacyRequest, MODERN, rpcBody, URL_LOCAL } from "./fixtures";

/** A handler with the `tasks` option (as the product's endpoints have) counting its servers. */
function countingHandler() {
  const built = { count: 0 };
  const handler = createMcpHandler(
    (ctx) => {
      built.count++;
      return buildServer(ctx);
    },
    { tasks: { namespace: () => env.MCP_TASKS, name: "ping-answer-test" } },
  );
  return { handler, built };
}

const ping = (id: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "ping",
  ...extra,
});

describe("ping without a server", () => {
  it("answers a 2025-era ping {} with its id, building no server", async () => {
    const { handler, built } = countingHandler();
    for (const [id, headers] of [
      [7, { "mcp-protocol-version": LEGACY }],
      ["a-string-id", {}],
      [0, { "mcp-protocol-version": "2025-06-18" }],
    ] as const) {
      const response = await handler.fetch(legacyRequest(ping(id), headers));
      expect(response.status).toBe(200);
      expect(await rpcBody(response)).toEqual({ jsonrpc: "2.0", id, result: {} });
    }
    expect(built.count).toBe(0);
  });

  it("answers as the SDK does: the same message, and CORS headers for a browser", async () => {
    const { handler } = countingHandler();
    const sdk = createMcpHandler(buildServer);
    const request = () =>
      legacyRequest(ping(9, { params: {} }), {
        "mcp-protocol-version": LEGACY,
        origin: "http://localhost:5173",
      });
    const fast = await handler.fetch(request());
    const slow = await sdk.fetch(request());
    expect(await rpcBody(fast)).toEqual(await rpcBody(slow));
    expect(fast.headers.get("access-control-allow-origin")).toBe(
      slow.headers.get("access-control-allow-origin"),
    );
  });

  it("carries every CORS header of the handler's options, each answer its own headers", async () => {
    const corsOptions = { origin: "https://app.example", maxAge: 60, exposeHeaders: "X-A" };
    const options = {
      corsOptions,
      allowedOriginHostnames: ["app.example"],
      tasks: { namespace: () => env.MCP_TASKS, name: "ping-answer-cors" },
    };
    const handler = createMcpHandler(buildServer, options);
    // The same handler's answer to a request the SDK serves: its CORS headers are the reference.
    const listed = await handler.fetch(
      legacyRequest(
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { origin: "https://app.example" },
      ),
    );
    const cors = (response: Response) =>
      [...response.headers].filter(([name]) => name.startsWith("access-control-"));
    expect(cors(listed)).toHaveLength(5);
    const first = await handler.fetch(legacyRequest(ping(1), { origin: "https://app.example" }));
    expect(cors(first)).toEqual(cors(listed));
    expect(first.headers.get("content-type")).toBe("application/json");
    // An answer's headers are its own: what one caller sets on it never reaches the next answer.
    first.headers.set("access-control-allow-origin", "https://evil.example");
    first.headers.set("x-leak", "1");
    const second = await handler.fetch(legacyRequest(ping(2), { origin: "https://app.example" }));
    expect(cors(second)).toEqual(cors(listed));
    expect(second.headers.has("x-leak")).toBe(false);
    expect(await rpcBody(second)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it.each([
    ["a 2026-era request", ping(1), { "mcp-protocol-version": MODERN, "mcp-method": "ping" }],
    ["an unsupported revision", ping(1), { "mcp-protocol-version": "2024-01-01" }],
    ["a session id", ping(1), { "mcp-session-id": "abc" }],
    ["params with _meta", ping(1, { params: { _meta: { progressToken: 1 } } }), {}],
    ["a null id (a notification's shape)", ping(null), {}],
    ["a batch", [ping(1)], {}],
    ["an extra member", ping(1, { extra: true }), {}],
    ["a missing Accept type", ping(1), { accept: "application/json" }],
    ["a text body type", ping(1), { "content-type": "text/plain" }],
  ])("leaves %s to the SDK", async (_name, body, headers) => {
    const { handler, built } = countingHandler();
    const sdk = createMcpHandler(buildServer);
    const mine = await handler.fetch(legacyRequest(body, headers as Record<string, string>));
    const theirs = await sdk.fetch(legacyRequest(body, headers as Record<string, string>));
    // Same status and body as the plain SDK handler gives (a server built or an error).
    expect(mine.status).toBe(theirs.status);
    expect(await mine.text()).toBe(await theirs.text());
    if (mine.status === 200) expect(built.count).toBe(1);
  });

  it("serves an SDK client's ping on the legacy lane", async () => {
    const { handler } = countingHandler();
    const client = new Client({ name: "ping-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
        fetch: (input, init) => handler.fetch(new Request(input, init)),
      }),
    );
    await expect(client.ping()).resolves.toEqual({});
    await client.close();
  });
});
