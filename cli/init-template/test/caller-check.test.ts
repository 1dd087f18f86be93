// Only callers with the key get an answer (src/caller-check.ts): an MCP request without it is
// refused with 401 and a message naming the header to send; one with it is served. A Worker with
// no key at all refuses everyone unless ALLOW_ANONYMOUS=on says it is meant to be open.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { refuseCaller } from "../src/caller-check";
import { connect, worker } from "./client";

/** The MCP endpoints this Worker serves. */
const ENDPOINTS = ["/mcp"];

/** An MCP `initialize` request as a client sends it, with these extra headers. */
function initialize(path: string, headers: Record<string, string> = {}): Request {
  return new Request(new URL(path, "http://localhost"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1.0.0" },
      },
    }),
  });
}

type Refusal = { error: { code: string; message: string; fix: string } };

describe.each(ENDPOINTS)("%s with the key and without", (path) => {
  it("refuses a request without the key: 401, naming the header to send", async () => {
    const response = await worker.fetch(initialize(path));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const { error } = (await response.json()) as Refusal;
    expect(error.code).toBe("unauthorized");
    expect(error.fix).toContain("Authorization: Bearer <MCP_API_KEY>");
  });

  it("refuses a wrong key without echoing it", async () => {
    const wrong = "not-the-key-0123456789";
    const response = await worker.fetch(initialize(path, { authorization: `Bearer ${wrong}` }));
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(wrong);
  });

  it("refuses an MCP client that connects without the key", async () => {
    await expect(connect(path, null)).rejects.toThrow(/401|nauthorized/);
  });

  it("serves a client that sends the key", async () => {
    const client = await connect(path);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

describe("a Worker without MCP_API_KEY", () => {
  const request = () => initialize("/mcp", { authorization: `Bearer ${env.MCP_API_KEY}` });

  it("refuses everyone (403), naming the key to set and the ALLOW_ANONYMOUS=on opt-out", async () => {
    for (const key of [undefined, ""]) {
      const refused = await refuseCaller(request(), { MCP_API_KEY: key as unknown as string });
      expect(refused?.status).toBe(403);
      const { error } = (await refused!.json()) as Refusal;
      expect(error.fix).toContain("npx wrangler secret put MCP_API_KEY");
      expect(error.fix).toContain("ALLOW_ANONYMOUS=on");
    }
  });

  it("serves everyone only with ALLOW_ANONYMOUS=on", async () => {
    const open = { MCP_API_KEY: undefined as unknown as string, ALLOW_ANONYMOUS: "on" };
    expect(await refuseCaller(initialize("/mcp"), open)).toBeUndefined();
    const almost = { ...open, ALLOW_ANONYMOUS: "true" };
    expect((await refuseCaller(initialize("/mcp"), almost))?.status).toBe(403);
  });
});
