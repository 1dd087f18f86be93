/**
 * Seed example examples/mcp-agent-oauth.ts: `new OAuthProvider({ apiHandlers: { "/mcp":
 * MyMCP.serve("/mcp") }, … })`. A real client registers, is authorized and exchanges its code
 * for a token against the example Worker, then an SDK v1 client with that token uses the agent;
 * without a token the provider answers 401 before the agent sees anything.
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/mcp-agent-oauth";
import { connectV1, text, viaWorker, withBearer } from "./support/clients";
import { accessToken } from "./support/oauth";

describe("seed: McpAgent behind OAuthProvider apiHandlers", () => {
  it("serves an authorized client", async () => {
    const fetch = viaWorker(worker);
    const token = await accessToken(fetch);
    const { client } = await connectV1("http://localhost/mcp", withBearer(fetch, token));
    expect(text(await client.callTool({ name: "square", arguments: { n: 9 } }))).toBe("81");
    await client.close();
  });

  it("refuses a request without a token", async () => {
    const response = await viaWorker(worker)("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(response.status).toBe(401);
  });
});
