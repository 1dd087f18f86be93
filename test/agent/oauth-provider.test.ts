/**
 * McpAgent behind `@cloudflare/workers-oauth-provider`, set up as the contract shows it
 * (`apiHandlers: { "/oauth-notes": NotesAgent.serve("/oauth-notes") }`): the real register →
 * authorize → token flow, then an SDK client with the access token; the grant's props reach the
 * agent (`this.props`) and `getMcpAuthContext()`. No token or a forged one gets 401.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { describe, expect, it } from "vitest";
import {
  connectClient,
  rpc,
  text,
  workerFetch,
  withoutStandaloneStream,
  initializeBody,
} from "./helpers";
import { captureConsole } from "../helpers/console-capture";
import { authorizeQuery, pkce, REDIRECT_URI, tokenRequest } from "../helpers/clients/oauth-client";

async function accessToken(): Promise<string> {
  const registered = await workerFetch("http://localhost/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "agent test",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const params = authorizeQuery(client_id, challenge);
  const authorized = await workerFetch(`http://localhost/authorize?${params}`, {
    redirect: "manual",
  });
  expect(authorized.status).toBe(302);
  const code = new URL(authorized.headers.get("location")!).searchParams.get("code")!;
  const token = await workerFetch(
    "http://localhost/token",
    tokenRequest(code, client_id, verifier),
  );
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

describe("McpAgent behind OAuthProvider", () => {
  it("serves an authorized client and hands the grant's props to the agent", async () => {
    const token = await accessToken();
    const authorized = withoutStandaloneStream((url, init) =>
      workerFetch(url, {
        ...init,
        headers: {
          ...Object.fromEntries(new Headers(init?.headers)),
          authorization: `Bearer ${token}`,
        },
      }),
    );
    const { client } = await connectClient("/oauth-notes", { fetch: authorized });
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who).toEqual({ props: "ana", context: "ana", authInfo: true });
    await client.close();
  });

  it("refuses requests without a token or with a forged one", async () => {
    const warnings = captureConsole("warn");
    expect((await rpc("/oauth-notes", initializeBody())).status).toBe(401);
    expect(
      (await rpc("/oauth-notes", initializeBody(), { authorization: "Bearer forged:token:x" }))
        .status,
    ).toBe(401);
    expect(warnings()).toContain("OAuth error response: 401 invalid_token - Invalid access token");
  });
});

describe("McpAgent.serveSSE behind OAuthProvider", () => {
  it("hands the grant's props to the agent and getMcpAuthContext; no token gets 401", async () => {
    const token = await accessToken();
    const authorized: typeof workerFetch = (url, init) =>
      workerFetch(url, {
        ...init,
        headers: {
          ...Object.fromEntries(new Headers(init?.headers)),
          authorization: `Bearer ${token}`,
        },
      });
    const client = new Client(
      { name: "sse-oauth", version: "1.0.0" },
      { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(
      new SSEClientTransport(new URL("http://localhost/oauth-sse"), {
        fetch: authorized,
        eventSourceInit: { fetch: authorized },
      }),
    );
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who).toEqual({ props: { user: "ana" }, context: { user: "ana" } });
    await client.close();
    expect((await workerFetch("http://localhost/oauth-sse")).status).toBe(401);
  });
});
