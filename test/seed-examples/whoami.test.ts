/**
 * Seed example examples/whoami.ts: `getMcpAuthContext()` in a tool, behind OAuthProvider. After
 * the real register → authorize → token flow, SDK v2 and v1 clients with the token see the
 * grant's `userId` (application props); the seed also reads the verified client id and scopes
 * from `context.http.authInfo`. The token itself never shows.
 */
import { describe, expect, it } from "vitest";
import { connectV1, connectV2, text, viaWorker, withBearer } from "./support/clients";
import { USER_ID } from "./support/auth-handler";
import { grant } from "./support/oauth";
import worker from "./support/whoami-worker";

type Who = { clientId?: string; scopes?: string[]; userId?: string };

async function whoamiV2() {
  const fetch = viaWorker(worker);
  const granted = await grant(fetch);
  const client = await connectV2("http://localhost/mcp", withBearer(fetch, granted.token));
  const reply = text(await client.callTool({ name: "whoami", arguments: {} }));
  await client.close();
  return { granted, reply, who: JSON.parse(reply) as Who };
}

describe("seed: getMcpAuthContext whoami", () => {
  it("reports the grant's userId to an SDK v2 client, never the token", async () => {
    const { granted, reply, who } = await whoamiV2();
    expect(who.userId).toBe(USER_ID);
    expect(reply).not.toContain(granted.token);
  });

  it("reports the verified client id and scopes from context.http.authInfo", async () => {
    const { granted, who } = await whoamiV2();
    expect(who.clientId).toBe(granted.clientId);
    expect(who.scopes).toEqual(granted.scopes);
  });

  it("reports the grant's userId to an SDK v1 client", async () => {
    const fetch = viaWorker(worker);
    const { token } = await grant(fetch);
    const { client } = await connectV1("http://localhost/mcp", withBearer(fetch, token));
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} }))) as Who;
    expect(who.userId).toBe(USER_ID);
    await client.close();
  });

  it("answers 401 without a token", async () => {
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
