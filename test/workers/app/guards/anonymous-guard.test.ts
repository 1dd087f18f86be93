/**
 * No anonymous callers on a deployed Worker (issue #41, src/app/anonymous-guard.ts): with no
 * caller check configured, a request to an app route under a deployment's name (workers.dev, a
 * custom domain) is refused with 403 naming the key, the header and the ALLOW_ANONYMOUS=on
 * opt-out; the same Worker reached as localhost (npm start's offline demo) serves it.
 */
import { describe, expect, it } from "vitest";
import { isLoopbackHostname } from "../../../../src/app/anonymous-guard";
import { configured, entry, TOOLS_LIST } from "../helpers";

const KEY = "anonymous-guard-test-key-0123456789";
const DEPLOYED = "https://my-app.me.workers.dev";

type Refusal = { error: { code: string; message: string; fix: string } };

describe("a deployed Worker with no caller check", () => {
  it("refuses every app route, naming the key, the header and the opt-out", async () => {
    for (const [path, init] of [
      ["/mcp", TOOLS_LIST],
      ["/mcp/code", TOOLS_LIST],
      ["/demo-api/projects", {}],
      ["/api/runs", {}],
    ] as const) {
      const response = await entry(`${DEPLOYED}${path}`, init);
      expect(response.status, path).toBe(403);
      const { error } = (await response.json()) as Refusal;
      expect(error.code).toBe("no_caller_check");
      expect(error.fix).toContain("npx wrangler secret put MCP_API_KEY");
      expect(error.fix).toContain("Authorization: Bearer <MCP_API_KEY>");
      expect(error.fix).toContain("ALLOW_ANONYMOUS=on");
    }
  });

  it("still answers /health and the status page", async () => {
    expect((await entry(`${DEPLOYED}/health`)).status).toBe(200);
    expect((await entry(`${DEPLOYED}/`)).status).toBe(200);
  });

  it("serves anyone with ALLOW_ANONYMOUS=on, and only with on", async () => {
    const open = configured({ ALLOW_ANONYMOUS: "on" });
    expect((await open(`${DEPLOYED}/mcp`, TOOLS_LIST)).status).toBe(200);
    const closed = configured({ ALLOW_ANONYMOUS: "off" });
    expect((await closed(`${DEPLOYED}/mcp`, TOOLS_LIST)).status).toBe(403);
  });

  it("with MCP_API_KEY: 401 without the key, served with it", async () => {
    const keyed = configured({ MCP_API_KEY: KEY });
    const refused = await keyed(`${DEPLOYED}/mcp`, TOOLS_LIST);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as Refusal).error.fix).toContain("Authorization: Bearer");
    const served = await keyed(`${DEPLOYED}/mcp`, {
      ...TOOLS_LIST,
      headers: { ...TOOLS_LIST.headers, authorization: `Bearer ${KEY}` },
    });
    expect(served.status).toBe(200);
  });

  it("lets a CORS preflight through (it carries no credentials)", async () => {
    const response = await entry(`${DEPLOYED}/mcp`, { method: "OPTIONS" });
    expect(response.status).not.toBe(403);
  });
});

describe("FORWARD_CALLER_TOKEN=on beside a credential of the server's own", () => {
  // Forwarding counts as a caller check only because the API checks each caller's token. A
  // caller who sends none gets API_TOKEN instead (api-request-handler.ts `credentialFor`), and
  // /mcp/code always sends UPSTREAM_MCP_AUTH: both were served to anyone (attack review).
  const API = { API_BASE_URL: "http://127.0.0.1:9/api", FORWARD_CALLER_TOKEN: "on" };

  it("refuses an anonymous caller when API_TOKEN would be sent in its place", async () => {
    const worker = configured({ ...API, API_TOKEN: "server-token-0123456789" });
    const response = await worker(`${DEPLOYED}/mcp`, TOOLS_LIST);
    expect(response.status).toBe(403);
    expect(((await response.json()) as Refusal).error.code).toBe("no_caller_check");
  });

  it("refuses an anonymous caller of /mcp/code when UPSTREAM_MCP_AUTH is set", async () => {
    const worker = configured({
      ...API,
      UPSTREAM_MCP_URL: "http://127.0.0.1:9/mcp",
      UPSTREAM_MCP_AUTH: "Bearer upstream-token-0123456789",
    });
    const response = await worker(`${DEPLOYED}/mcp/code`, TOOLS_LIST);
    expect(response.status).toBe(403);
    expect(((await response.json()) as Refusal).error.code).toBe("no_caller_check");
  });

  it("still serves callers when the server holds no credential of its own", async () => {
    const response = await configured(API)(`${DEPLOYED}/mcp`, TOOLS_LIST);
    expect(response.status).toBe(200);
  });
});

describe("a local server (npm start's offline demo)", () => {
  it("serves the app routes with no key under a loopback name", async () => {
    for (const origin of ["http://localhost:8787", "http://127.0.0.1:8787", "http://[::1]:8787"])
      expect((await entry(`${origin}/mcp`, TOOLS_LIST)).status, origin).toBe(200);
  });

  it("counts a relayed request as remote, even sent to a loopback name", async () => {
    // A tunnel or proxy that rewrites Host to localhost (ngrok --host-header=rewrite) made any
    // remote caller local (attack review); the relay's own headers give it away.
    for (const [header, value] of [
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-host", "abc.ngrok-free.app"],
      ["forwarded", "for=203.0.113.7;host=abc.trycloudflare.com"],
      ["x-real-ip", "203.0.113.7"],
      ["cf-connecting-ip", "203.0.113.7"],
      ["cf-connecting-ip", "2001:db8::7"],
    ] as const) {
      const response = await entry("http://localhost:8787/mcp", {
        ...TOOLS_LIST,
        headers: { ...TOOLS_LIST.headers, [header]: value },
      });
      expect(response.status, `${header}: ${value}`).toBe(403);
    }
    // The local front and wrangler dev name the client: on this machine, still local.
    for (const client of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const response = await entry("http://localhost:8787/mcp", {
        ...TOOLS_LIST,
        headers: { ...TOOLS_LIST.headers, "cf-connecting-ip": client },
      });
      expect(response.status, client).toBe(200);
    }
  });

  it("counts only loopback names as local", () => {
    for (const local of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"])
      expect(isLoopbackHostname(local), local).toBe(true);
    for (const remote of [
      "my-app.me.workers.dev",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "10.0.0.2",
      "[::2]",
      "mcp.example.com",
    ])
      expect(isLoopbackHostname(remote), remote).toBe(false);
  });
});
