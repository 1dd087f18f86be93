/**
 * Seed example examples/storage-mcp.ts: the password-protected StorageMcp. A client registers,
 * gets the example's password page, posts the password (a wrong one gets the page again with
 * "Wrong password."), exchanges the code for a token, then an SDK v1 client writes and reads a
 * file in R2 and `whoami` answers the `userId` the grant put in `this.props`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./examples/storage-mcp";
import { withMcpObject } from "./support/bindings";
import { connectV1, text, viaWorker, withBearer, type FetchLike } from "./support/clients";
import { authorizeQuery, pkce, REDIRECT_URI, tokenRequest } from "../helpers/clients/oauth-client";

const fetch = viaWorker(worker, withMcpObject(env.STORAGE_MCP));

/** register → password page → POST password → token, as a browser and a client would. */
async function signIn(call: FetchLike, password: string) {
  const registered = await call("http://localhost/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const query = authorizeQuery(client_id, challenge);
  const page = await call(`http://localhost/authorize?${query}`);
  const posted = await call(`http://localhost/authorize?${query}`, {
    method: "POST",
    body: new URLSearchParams({ password }),
    redirect: "manual",
  });
  if (posted.status !== 302) return { page, posted, token: undefined };
  const code = new URL(posted.headers.get("location")!).searchParams.get("code")!;
  const token = await call("http://localhost/token", tokenRequest(code, client_id, verifier));
  const { access_token } = (await token.json()) as { access_token: string };
  return { page, posted, token: access_token };
}

describe("seed: password-protected StorageMcp with OAuth", () => {
  it("signs in with the password, then writes, reads and says who the user is", async () => {
    const { page, token } = await signIn(fetch, env.SHARED_PASSWORD);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("ENTER THE MAGIC WORD");
    expect(token).toBeTruthy();
    const { client } = await connectV1("http://localhost/mcp", withBearer(fetch, token!));
    const write = { path: "/notes/hello.txt", content: "seed" };
    expect(text(await client.callTool({ name: "writeFile", arguments: write }))).toBe(
      "Successfully stored contents to /notes/hello.txt",
    );
    expect(
      text(await client.callTool({ name: "readFile", arguments: { path: "/notes/hello.txt" } })),
    ).toBe("seed");
    expect(text(await client.callTool({ name: "whoami", arguments: {} }))).toBe("friend");
    await client.close();
  });

  it("shows the page again for a wrong password, and refuses the API without a token", async () => {
    const { posted, token } = await signIn(fetch, "not-the-password");
    expect(token).toBeUndefined();
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("Wrong password.");
    expect((await fetch("http://localhost/mcp", { method: "POST" })).status).toBe(401);
  });
});
