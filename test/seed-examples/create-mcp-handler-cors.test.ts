/**
 * Seed example examples/create-mcp-handler-cors.ts: `allowedHostnames: ["mcp.example.com"]` with
 * a concrete `corsOptions.origin`. The custom domain serves; its CORS origin is allowed (derived
 * from `corsOptions.origin`); another browser Origin and another Host are refused with 403.
 */
import { describe, expect, it } from "vitest";
import handler from "./examples/create-mcp-handler-cors";
import { connectV2, text, viaWorker, type FetchLike } from "./support/clients";

function withHeaders(inner: FetchLike, extra: Record<string, string>): FetchLike {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return inner(url, { ...init, headers });
  };
}

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
function post(fetch: FetchLike, url: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      ...headers,
    },
    body: JSON.stringify(ping),
  });
}

describe("seed: createMcpHandler Host, Origin and CORS options", () => {
  it("serves a client of the custom domain from the configured browser origin", async () => {
    const fetch = withHeaders(viaWorker(handler), { origin: "https://app.example.com" });
    const client = await connectV2("https://mcp.example.com/mcp", fetch);
    expect(text(await client.callTool({ name: "hello", arguments: {} }))).toBe("Hello, World!");
    await client.close();
  });

  it("answers CORS with the configured origin", async () => {
    const response = await viaWorker(handler)("https://mcp.example.com/mcp", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
      },
    });
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
  });

  it("refuses another browser origin with 403", async () => {
    const response = await post(viaWorker(handler), "https://mcp.example.com/mcp", {
      origin: "https://evil.example",
    });
    expect(response.status).toBe(403);
  });

  it("refuses another Host with 403", async () => {
    const response = await post(viaWorker(handler), "https://evil.example/mcp");
    expect(response.status).toBe(403);
  });
});
