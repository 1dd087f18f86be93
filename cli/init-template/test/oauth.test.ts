// Only clients that signed in get an answer (src/oauth.ts): an MCP request without an access
// token, or with a forged one, is refused with 401 and a WWW-Authenticate header that tells the
// client where to sign in; the consent page grants a token only for the owner's passphrase, and
// locks after five wrong ones; a signed-in client is served.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { approve, authorizeUrl, call, connect, register } from "./client";

/** The MCP endpoints this Worker serves. */
const ENDPOINTS = ["/mcp"];

/** An MCP `initialize` request as a client sends it, with these extra headers. */
function initialize(path: string, headers: Record<string, string> = {}): RequestInit {
  return {
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
  };
}

describe.each(ENDPOINTS)("%s with a token and without", (path) => {
  it("refuses a request without a token: 401, pointing the client at the sign-in", async () => {
    const response = await call(path, initialize(path));
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer/);
    const metadata = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadata).toBeDefined();
    const resource = (await (await call(metadata!)).json()) as { authorization_servers: string[] };
    const server = (await (
      await call(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string>;
    expect(new URL(server.authorization_endpoint!).pathname).toBe("/authorize");
    expect(new URL(server.registration_endpoint!).pathname).toBe("/register");
  });

  it("refuses a forged token", async () => {
    const forged = { authorization: "Bearer owner:grant:0123456789abcdef0123456789abcdef" };
    expect((await call(path, initialize(path, forged))).status).toBe(401);
    await expect(connect(path, {})).rejects.toThrow(/401|nauthorized/);
  });

  it("serves a client that signed in", async () => {
    const client = await connect(path);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

describe("the consent page", () => {
  it("names the client and where the grant goes, in a page no site may frame", async () => {
    const { url } = await authorizeUrl(await register("Desktop <b>client</b>"));
    const page = await call(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    expect(html).toContain("Desktop &lt;b&gt;client&lt;/b&gt;");
    expect(html).toContain("http://127.0.0.1:9999/callback");
    expect(html).not.toContain(env.OAUTH_PASSWORD);
  });

  it("grants nothing for a wrong passphrase, and locks after five: then even the right one waits", async () => {
    const { url } = await authorizeUrl(await register());
    const address = "198.51.100.7";
    for (let i = 0; i < 5; i++) {
      const wrong = await approve(url, `wrong-${i}`, address);
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("location")).toBeNull();
      expect(await wrong.text()).not.toContain(`wrong-${i}`);
    }
    const locked = await approve(url, env.OAUTH_PASSWORD, address);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(locked.headers.get("location")).toBeNull();
  });

  it("refuses a post from another site's page before it counts as a guess", async () => {
    const { url } = await authorizeUrl(await register());
    const address = "198.51.100.10";
    const post = (passphrase: string, origin: string) =>
      call(url, {
        method: "POST",
        body: new URLSearchParams({ passphrase }),
        headers: { "cf-connecting-ip": address, origin },
        redirect: "manual",
      });
    // Six wrong posts from another site's page (or a sandboxed frame's `null` origin): none is
    // checked or counted, not even with the right passphrase.
    for (const origin of ["https://evil.example", "null", "https://evil.example", "null"]) {
      const refused = await post(`wrong-${origin}`, origin);
      expect(refused.status).toBe(403);
      expect(refused.headers.get("location")).toBeNull();
    }
    expect((await post(env.OAUTH_PASSWORD, "https://evil.example")).status).toBe(403);
    // The page's own post (its origin) still grants: nothing was counted against the address.
    const own = new URL(url, "http://localhost").origin;
    expect((await post(env.OAUTH_PASSWORD, own)).status).toBe(302);
  });

  it("refuses a form past 16 KiB (declared or streamed) with 413, and counts it as no guess", async () => {
    const { url } = await authorizeUrl(await register());
    const address = "198.51.100.11";
    const own = new URL(url, "http://localhost").origin;
    const big = new URLSearchParams({ passphrase: "x".repeat(20_000) }).toString();
    const headers = {
      "cf-connecting-ip": address,
      origin: own,
      "content-type": "application/x-www-form-urlencoded",
    };
    for (let i = 0; i < 3; i++) {
      const declared = await call(url, { method: "POST", body: big, headers, redirect: "manual" });
      expect(declared.status).toBe(413);
      const bytes = new TextEncoder().encode(big);
      const streamed = await call(url, {
        method: "POST",
        // A stream declares no length: the cap is counted as it is read.
        body: new ReadableStream({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 4096)
              controller.enqueue(bytes.subarray(at, at + 4096));
            controller.close();
          },
        }),
        headers,
        redirect: "manual",
        duplex: "half",
      } as RequestInit);
      expect(streamed.status).toBe(413);
    }
    // Six refused forms counted nothing: the owner still signs in from that address.
    expect((await approve(url, env.OAUTH_PASSWORD, address)).status).toBe(302);
  });

  it("checks five of a burst of guesses sent at once, and counts no right passphrase", async () => {
    const { url } = await authorizeUrl(await register());
    const address = "198.51.100.8";
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => approve(url, `burst-${i}`, address)),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    // The owner signs in again and again from one address: a right passphrase uses up nothing.
    for (let i = 0; i < 6; i++) {
      const fresh = await authorizeUrl(await register());
      expect((await approve(fresh.url, env.OAUTH_PASSWORD, "198.51.100.9")).status).toBe(302);
    }
  });

  it("counts an IPv6 address by its /64: new clients from new addresses of one host are limited", async () => {
    // One host holds a whole /64. Counted per full address, a guess from each new address, on a
    // new client each time, was checked every time: 12 of 12, no limit at all.
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      const { url } = await authorizeUrl(await register());
      statuses.push((await approve(url, `rotated-${i}`, `2001:db8:7:7::${i.toString(16)}`)).status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    // Another /64 is another address.
    const { url } = await authorizeUrl(await register());
    expect((await approve(url, env.OAUTH_PASSWORD, "2001:db8:7:8::1")).status).toBe(302);
  });

  it("grants no one when OAUTH_PASSWORD is not set, or too short to resist guessing", async () => {
    // Through the whole Worker (the OAuth provider in front), with the passphrase itself sent:
    // a short one, guessable despite the limit, granted a token before.
    const worker = (await import("../src/index")).default as ExportedHandler<Cloudflare.Env>;
    for (const unset of [undefined, "", "hunter2", "12345678901"]) {
      const { url } = await authorizeUrl(await register());
      const request = new Request(new URL(url, "http://localhost"), {
        method: "POST",
        body: new URLSearchParams({ passphrase: unset ?? "" }),
        headers: { "cf-connecting-ip": "192.0.2.55" },
        redirect: "manual",
      });
      const refused = await worker.fetch!(
        request as Request<unknown, IncomingRequestCfProperties>,
        { ...env, OAUTH_PASSWORD: unset as unknown as string },
        createExecutionContext(),
      );
      expect(refused.status, String(unset)).toBe(503);
      expect(refused.headers.get("location")).toBeNull();
      expect(await refused.text()).toContain("npx wrangler secret put OAUTH_PASSWORD");
    }
  });
});

describe("client registration (src/registration-limit.ts)", () => {
  it("is bounded per address: ten an hour, then 429 naming the setting; another address is served", async () => {
    const send = (address: string) =>
      call("/register", {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": address },
        body: JSON.stringify({
          client_name: "flood",
          redirect_uris: ["https://client.example/callback"],
          token_endpoint_auth_method: "none",
        }),
      });
    // Sent at once: counted as they come, before anything is stored.
    const statuses = (await Promise.all(Array.from({ length: 13 }, () => send("203.0.113.9")))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    const refused = await send("203.0.113.9");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe("too_many_registrations");
    expect(body.error_description).toContain("OAUTH_REGISTRATIONS_PER_HOUR");
    expect((await send("198.51.100.9")).status).toBe(201);
  });
});
