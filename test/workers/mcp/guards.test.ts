// createMcpHandler's Origin and Host guards, routing and CORS.
import { describe, expect, it } from "vitest";
import { createMcpHandler, DEFAULT_CORS_OPTIONS } from "../../../src/index";
import { buildServer, legacyRequest, modernRequest, rpcBody } from "./fixtures";

const ping = { jsonrpc: "2.0", id: 7, method: "ping" };

/** A 2025-era ping sent to `url` with the given Origin (and Host taken from the URL). */
function withOrigin(url: string, origin: string | undefined, host?: string): Request {
  const request = legacyRequest(ping, {
    ...(origin !== undefined && { origin }),
    host: host ?? new URL(url).host,
  });
  return new Request(url, request);
}

describe("Origin and Host guards", () => {
  const handler = createMcpHandler(buildServer);
  const local = "http://localhost:8787/mcp";
  const workersDev = "https://demo.acct.workers.dev/mcp";
  const custom = "https://mcp.example.com/mcp";

  it.each([
    ["no Origin (non-browser client)", local, undefined, 200],
    ["localhost Origin, any port", local, "http://localhost:5173", 200],
    ["127.0.0.1 Origin", local, "http://127.0.0.1:3000", 200],
    ["[::1] Origin", local, "http://[::1]:3000", 200],
    ["foreign Origin on localhost", local, "https://evil.example", 403],
    ["malformed Origin", local, "not a url", 403],
    ["opaque null Origin", local, "null", 403],
    ["file:// Origin", local, "file://", 403],
    ["extension Origin", local, "chrome-extension://abcdef", 403],
    ["workers.dev endpoint, its own Origin", workersDev, "https://demo.acct.workers.dev", 200],
    [
      "workers.dev endpoint, other workers.dev Origin",
      workersDev,
      "https://evil.acct.workers.dev",
      403,
    ],
    ["custom domain, same-host Origin, no allowlist", custom, "https://mcp.example.com", 403],
    ["custom domain, no Origin", custom, undefined, 200],
  ])("%s", async (_name, url, origin, status) => {
    const response = await handler.fetch(withOrigin(url, origin));
    expect(response.status).toBe(status);
    if (status === 403) {
      const body = await response.json<any>();
      expect(body.error.code).toBe(-32000);
      expect(body.error.message).toMatch(/^Forbidden: /);
    }
  });

  it("accepts a custom domain's Origin once allowlisted (scheme and port ignored)", async () => {
    const allowlisted = createMcpHandler(buildServer, {
      allowedOriginHostnames: ["mcp.example.com"],
    });
    expect(
      (await allowlisted.fetch(withOrigin(custom, "http://mcp.example.com:8443"))).status,
    ).toBe(200);
    expect((await allowlisted.fetch(withOrigin(custom, "https://other.example.com"))).status).toBe(
      403,
    );
  });

  it("adds a concrete corsOptions.origin to the Origin allowlist", async () => {
    const cors = createMcpHandler(buildServer, {
      corsOptions: { origin: "https://app.example.com" },
    });
    const ok = await cors.fetch(withOrigin(custom, "https://app.example.com"));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect((await cors.fetch(withOrigin(custom, "https://mcp.example.com"))).status).toBe(403);
  });

  it('"*" disables the Origin check (behind trusted middleware)', async () => {
    const open = createMcpHandler(buildServer, { allowedOriginHostnames: "*" });
    expect((await open.fetch(withOrigin(custom, "null"))).status).toBe(200);
  });

  it("checks Host on localhost and workers.dev endpoints", async () => {
    expect((await handler.fetch(withOrigin(local, undefined, "localhost:8787"))).status).toBe(200);
    expect((await handler.fetch(withOrigin(local, undefined, "evil.example"))).status).toBe(403);
    expect(
      (await handler.fetch(withOrigin(workersDev, undefined, "evil.acct.workers.dev"))).status,
    ).toBe(403);
    // Custom domains are routed by Cloudflare: no Host list unless configured.
    expect((await handler.fetch(withOrigin(custom, undefined, "mcp.example.com"))).status).toBe(
      200,
    );
  });

  it("checks Host against allowedHostnames when configured", async () => {
    const strict = createMcpHandler(buildServer, { allowedHostnames: ["mcp.example.com"] });
    expect((await strict.fetch(withOrigin(custom, undefined, "mcp.example.com"))).status).toBe(200);
    expect((await strict.fetch(withOrigin(custom, undefined, "other.example.com"))).status).toBe(
      403,
    );
  });
});

describe("routing and CORS", () => {
  const handler = createMcpHandler(buildServer);

  it("answers a CORS preflight with the default header set", async () => {
    const response = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "OPTIONS",
        headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toBe(DEFAULT_CORS_OPTIONS.headers);
    expect(response.headers.get("access-control-allow-headers")).toContain("Mcp-Method");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("refuses a preflight from a foreign Origin", async () => {
    const response = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "OPTIONS",
        headers: { origin: "https://evil.example" },
      }),
    );
    expect(response.status).toBe(403);
  });

  it("puts CORS headers on MCP responses", async () => {
    const response = await handler.fetch(legacyRequest(ping));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
  });

  it("serves only the exact route", async () => {
    for (const path of ["/", "/mcp/", "/mcp/x", "/MCP", "/other"]) {
      const response = await handler.fetch(
        new Request(`http://localhost${path}`, legacyRequest(ping)),
      );
      expect(response.status, path).toBe(404);
    }
    const custom = createMcpHandler(buildServer, { route: "/api/mcp" });
    expect(
      (await custom.fetch(new Request("http://localhost/api/mcp", legacyRequest(ping)))).status,
    ).toBe(200);
    expect((await custom.fetch(legacyRequest(ping))).status).toBe(404);
  });

  it("serves a modern request with CORS headers", async () => {
    const response = await handler.fetch(
      modernRequest("tools/call", { name: "echo", arguments: { text: "hi" } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect((await rpcBody(response)).result.content[0].text).toBe("hi");
  });
});
