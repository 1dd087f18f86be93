// The product Worker with OAUTH=on, driven by real SDK v2 clients and the OAuth flow as a client
// runs it: the owner's passphrase, each user's own, the attempt limits and the consent page.
import { describe, expect, it } from "vitest";
import { configured } from "../helpers";
import { connect } from "../../../helpers/clients/mcp-client";
import { captureConsole } from "../../../helpers/console-capture";
import {
  authorizeQuery,
  pkce,
  registerClient,
  tokenRequest,
  userPassphrase,
} from "../../../helpers/clients/oauth-client";

describe("OAuth (OAUTH=on)", () => {
  const PASSWORD = "correct horse battery staple";
  const worker = configured({ OAUTH: "on", OAUTH_PASSWORD: PASSWORD });
  const base = "http://localhost";

  async function authorizeUrl() {
    const client_id = await registerClient(worker, base);
    const { verifier, challenge } = await pkce();
    const params = authorizeQuery(client_id, challenge, { state: "s1", scope: "mcp" });
    return { url: `${base}/authorize?${params}`, client_id, verifier };
  }

  /**
   * Posts the sign-in form to `url` as a browser does (the redirect is the answer, not followed),
   * from `ip` when given: the limits count by address.
   */
  const signIn = (url: string, form: Record<string, string>, ip?: string) =>
    worker(url, {
      method: "POST",
      ...(ip === undefined ? {} : { headers: { "cf-connecting-ip": ip } }),
      body: new URLSearchParams(form),
      redirect: "manual",
    });

  /** The form of `user` who knows the owner's passphrase and their own. */
  const rightForm = (user: string) => ({
    user,
    passphrase: PASSWORD,
    user_passphrase: userPassphrase(user),
  });

  /** Another test address each time, so tests that are not about the limits stay under them. */
  const randomAddress = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;

  it("refuses MCP requests without a token and advertises the authorization server", async () => {
    const response = await worker(`${base}/mcp`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Bearer");
    const metadata = await worker(`${base}/.well-known/oauth-authorization-server`);
    expect(((await metadata.json()) as { token_endpoint: string }).token_endpoint).toBe(
      `${base}/token`,
    );
    expect((await worker(`${base}/health`)).status).toBe(200);
  });

  it("grants a token after the owner's passphrase; the token opens /mcp and /mcp/code, a forged one does not", async () => {
    const warnings = captureConsole("warn");
    const { url, client_id, verifier } = await authorizeUrl();
    const page = await worker(url);
    expect(await page.text()).toContain("Authorize Test client");
    const wrong = await signIn(url, { user: "ana", passphrase: "nope" });
    expect(wrong.status).toBe(401);
    const approved = await signIn(url, rightForm("ana"));
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get("location")!);
    expect(callback.searchParams.get("state")).toBe("s1");
    const token = await worker(
      `${base}/token`,
      tokenRequest(callback.searchParams.get("code")!, client_id, verifier),
    );
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const client = await connect(worker, "/mcp", {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect((await client.listTools()).tools.map((t) => t.name).toSorted()).toEqual([
      "execute",
      "search",
    ]);
    // The run history names the OAuth user and, like /mcp, needs the token.
    const marker = `oauth-run-${crypto.randomUUID()}`;
    await client.callTool({ name: "search", arguments: { code: `async () => "${marker}"` } });
    await client.close();
    expect((await worker(`${base}/api/runs`)).status).toBe(401);
    let runs: { caller: string; preview: string }[] = [];
    for (let i = 0; i < 200 && !runs.some((r) => r.preview.includes(marker)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const listed = await worker(`${base}/api/runs`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(listed.status).toBe(200);
      runs = ((await listed.json()) as { runs: typeof runs }).runs;
    }
    expect(runs.find((r) => r.preview.includes(marker))?.caller).toBe("oauth:ana");
    const code = await connect(worker, "/mcp/code", {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect((await code.listTools()).tools).toHaveLength(1);
    await code.close();
    const bad = await worker(`${base}/mcp`, {
      method: "POST",
      headers: { authorization: "Bearer forged:token:value" },
      body: "{}",
    });
    expect(bad.status).toBe(401);
    expect(warnings()).toContain("OAuth error response: 401 invalid_token - Invalid access token");
  });

  /** The whole authorization-code flow for `user`: their access token. */
  async function tokenFor(user: string): Promise<string> {
    const { url, client_id, verifier } = await authorizeUrl();
    const approved = await signIn(url, rightForm(user));
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const token = await worker(`${base}/token`, tokenRequest(code, client_id, verifier));
    expect(token.status).toBe(200);
    return ((await token.json()) as { access_token: string }).access_token;
  }

  it("binds a user name to its own passphrase: OAUTH_PASSWORD alone cannot sign in as another user", async () => {
    // Before, the name typed on the form was taken as is: anyone with the owner's passphrase
    // got a grant as "alice" and with it alice's skills, runs and tasks.
    const alice = `alice-${crypto.randomUUID().slice(0, 8)}`;
    const consent = async (user: string, own: string | undefined) => {
      const { url } = await authorizeUrl();
      return signIn(
        url,
        { user, passphrase: PASSWORD, ...(own === undefined ? {} : { user_passphrase: own }) },
        randomAddress(),
      );
    };
    // The first sign-in under a name must set its passphrase.
    const none = await consent(alice, undefined);
    expect(none.status).toBe(400);
    expect(await none.text()).toMatch(
      new RegExp(
        `The first sign-in as &quot;${alice}&quot; sets that user.* at least 8 characters`,
      ),
    );
    expect((await consent(alice, "alice's own secret")).status).toBe(302);
    // Mallory holds OAUTH_PASSWORD but not alice's passphrase.
    for (const guess of [undefined, "", "mallory's guess", userPassphrase(alice)]) {
      const refused = await consent(alice, guess);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain(`Wrong passphrase for the user &quot;${alice}&quot;`);
    }
    expect((await consent(alice, "alice's own secret")).status).toBe(302);
  });

  it("lets one of two first sign-ins racing for a new name claim it: the other is refused", async () => {
    // The claim was a read, a 100,000-round hash, then a write: two first sign-ins sent at once
    // both read "no passphrase yet" and both got a grant as the new user (with OAUTH_KV,
    // eventually consistent, the window was the 60 s a write takes to be seen everywhere).
    const name = `claim-${crypto.randomUUID().slice(0, 8)}`;
    const [first, second] = [await authorizeUrl(), await authorizeUrl()];
    const consent = (url: string, own: string, ip: string) =>
      signIn(url, { user: name, passphrase: PASSWORD, user_passphrase: own }, ip);
    const statuses = (
      await Promise.all([
        consent(first.url, "the real user's passphrase", "198.51.100.201"),
        consent(second.url, "mallory's passphrase", "203.0.113.201"),
      ])
    ).map((r) => r.status);
    expect(statuses.toSorted()).toEqual([302, 401]);
    // Whoever won keeps the name; the other passphrase stays wrong.
    const winner = statuses[0] === 302 ? "the real user's passphrase" : "mallory's passphrase";
    const loser = statuses[0] === 302 ? "mallory's passphrase" : "the real user's passphrase";
    expect((await consent((await authorizeUrl()).url, loser, "192.0.2.201")).status).toBe(401);
    expect((await consent((await authorizeUrl()).url, winner, "192.0.2.202")).status).toBe(302);
  });

  it("refuses a consent form over its byte cap, declared or streamed, without counting a guess", async () => {
    // The deployed Worker read `formData()` whole, however large (the local front caps bodies at
    // 64 KiB; a Worker reached directly had no cap): a form padded to 1 MiB was read and served.
    const padded = (user: string) =>
      new URLSearchParams({ ...rightForm(user), pad: "x".repeat(1_048_576) }).toString();
    const ip = randomAddress();
    const user = `cap-${crypto.randomUUID().slice(0, 8)}`;
    const postDeclared = async () =>
      worker((await authorizeUrl()).url, {
        method: "POST",
        headers: { "cf-connecting-ip": ip, "content-type": "application/x-www-form-urlencoded" },
        body: padded(user),
        redirect: "manual",
      });
    const declared = await postDeclared();
    expect(declared.status).toBe(413);
    expect(await declared.text()).toContain("16,384 bytes");
    const bytes = new TextEncoder().encode(padded(user));
    const streamed = await worker((await authorizeUrl()).url, {
      method: "POST",
      headers: { "cf-connecting-ip": ip, "content-type": "application/x-www-form-urlencoded" },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 65_536)
            controller.enqueue(bytes.subarray(at, at + 65_536));
          controller.close();
        },
      }),
      redirect: "manual",
    });
    expect(streamed.status).toBe(413);
    // Neither was counted as a guess: five refusals later, the right form still signs in.
    for (let i = 0; i < 5; i++) expect((await postDeclared()).status).toBe(413);
    expect((await signIn((await authorizeUrl()).url, rightForm(user), ip)).status).toBe(302);
  });

  it("refuses a user name too long to name its owner whole: two long names shared one owner", async () => {
    // Skills and runs name their owner by the user id cut to 200 characters (skill-owner.ts,
    // runs/caller.ts), while the passphrase was bound to the whole id: "<victim's long name>x"
    // was a new user with a passphrase of its own, and its grant reached the victim's skills
    // and runs. A letter outside ASCII is 6 to 12 characters of the id: 34 Cyrillic ones do it.
    const stem = `${crypto.randomUUID().slice(0, 8)}-${"Я".repeat(40)}`;
    const consent = async (user: string) => {
      const { url } = await authorizeUrl();
      return signIn(
        url,
        { user, passphrase: PASSWORD, user_passphrase: `${user} own` },
        randomAddress(),
      );
    };
    for (const user of [`${stem}-victim`, `${stem}-mallory`]) {
      const refused = await consent(user);
      expect(refused.status, user).toBe(400);
      expect(await refused.text()).toContain("at most 200 characters");
    }
    // A name whose id fits is served.
    expect((await consent(`${crypto.randomUUID().slice(0, 8)}-${"Я".repeat(30)}`)).status).toBe(
      302,
    );
  });

  it("shows each OAuth user only their own runs: another user's program and result stay hidden", async () => {
    const [ana, bob] = [await tokenFor("ana"), await tokenFor("bob")];
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const client = await connect(worker, "/mcp", as(ana));
    const marker = `ana-only-${crypto.randomUUID()}`;
    await client.callTool({ name: "search", arguments: { code: `async () => "${marker}"` } });
    await client.close();
    type Listed = { runs: { id: string; caller: string; preview: string }[] };
    const list = async (token: string) =>
      ((await (await worker(`${base}/api/runs?limit=200`, as(token))).json()) as Listed).runs;
    let mine: Listed["runs"] = [];
    for (let i = 0; i < 200 && mine.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      mine = (await list(ana)).filter((r) => r.preview.includes(marker));
    }
    expect(mine.map((r) => r.caller)).toEqual(["oauth:ana"]);
    const theirs = await list(bob);
    expect(theirs.some((r) => r.preview.includes(marker))).toBe(false);
    expect(theirs.every((r) => r.caller === "oauth:bob")).toBe(true);
    const id = encodeURIComponent(mine[0]!.id);
    expect((await worker(`${base}/api/runs/${id}`, as(bob))).status).toBe(404);
    const own = await worker(`${base}/api/runs/${id}`, as(ana));
    expect(own.status).toBe(200);
    expect(JSON.stringify(await own.json())).toContain(marker);
  });

  it("shows where the grant goes, so a client named after a trusted one cannot hide its redirect", async () => {
    // A stranger registers "Claude" with a redirect of their own and sends the owner the link:
    // the page said only "Authorize Claude", and the owner's passphrase sent the code there.
    const registered = await worker(`${base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Claude",
        redirect_uris: ["https://attacker.example/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const { challenge } = await pkce();
    const query = authorizeQuery(client_id, challenge, { scope: "mcp" });
    query.set("redirect_uri", "https://attacker.example/callback");
    const page = await worker(`${base}/authorize?${query}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<code>https://attacker.example/callback</code>");
    expect(page.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
  });

  it("limits wrong passphrases per client and per address: then even the right one is refused", async () => {
    const guess = (url: string, passphrase: string, ip: string) =>
      signIn(url, { ...rightForm("mallory"), passphrase }, ip);
    const attacked = await authorizeUrl();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await guess(attacked.url, `guess-${i}`, "203.0.113.7")).status);
    // Five wrong guesses are answered; after that nothing is checked any more.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const locked = await guess(attacked.url, PASSWORD, "203.0.113.7");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60);
    // The same client from another address: still locked (per client).
    expect((await guess(attacked.url, PASSWORD, "198.51.100.1")).status).toBe(429);
    // Another client from the attacking address: locked (per address).
    const other = await authorizeUrl();
    expect((await guess(other.url, PASSWORD, "203.0.113.7")).status).toBe(429);
    // Another client from another address is served as before.
    expect((await guess(other.url, PASSWORD, "198.51.100.2")).status).toBe(302);
  });

  it("refuses a sign-in posted by another site's page before it counts as a guess", async () => {
    // Found by attack10: any page the owner visited could register a client (a text/plain POST)
    // and post the form five times: every client from that address (on a local server, every
    // client) then got 429 for 15 minutes, and the page had its five guesses.
    const ip = randomAddress();
    const attacked = await authorizeUrl();
    const crossSite = (origin: string) =>
      worker(attacked.url, {
        method: "POST",
        headers: { "cf-connecting-ip": ip, origin },
        body: new URLSearchParams({ ...rightForm("mallory"), passphrase: "a guess" }),
        redirect: "manual",
      });
    for (const origin of ["https://evil.example", "null", "https://evil.example", "null"]) {
      for (let i = 0; i < 2; i++) {
        const answer = await crossSite(origin);
        expect(answer.status).toBe(403);
        // The consent page's own error page, saying why.
        expect(await answer.text()).toContain("A browser page of another site");
      }
    }
    // None was counted: the right passphrase, from the consent page itself, still signs in.
    const own = await worker(attacked.url, {
      method: "POST",
      headers: { "cf-connecting-ip": ip, origin: base },
      body: new URLSearchParams(rightForm("owner-of-this-test")),
      redirect: "manual",
    });
    expect(own.status).toBe(302);
  });

  it("counts an IPv6 address by its /64: a new client from a new address of one host per guess is limited", async () => {
    // One host holds a whole /64. Counted per full address, an attacker who registered a new
    // client per guess and sent each from another address of its /64 had all 12 of 12 checked.
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      const { url } = await authorizeUrl();
      const response = await signIn(
        url,
        { user: "mallory", passphrase: `rotated-${i}` },
        `2001:db8:40:1::${i.toString(16)}`,
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    // The same prefix written another way is the same address; another /64 is another one.
    const mapped = await authorizeUrl();
    const again = await signIn(mapped.url, rightForm("owner"), "2001:0DB8:0040:0001:ffff::9");
    expect(again.status).toBe(429);
    const owner = await authorizeUrl();
    const signedIn = await signIn(owner.url, rightForm("owner"), "2001:db8:40:2::1");
    expect(signedIn.status).toBe(302);
  });

  it("checks at most five of a burst of wrong passphrases sent at once (issue #40: 60 guesses)", async () => {
    // Each guess read the count before any was recorded, so a burst was checked whole: 30 of 30
    // through the local server's front (test/e2e/oauth-guesses.mjs). Counting before checking,
    // in one atomic step, leaves a burst the same five as one guess after another.
    const attacked = await authorizeUrl();
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signIn(attacked.url, { user: "mallory", passphrase: `burst-${i}` }, "203.0.113.99").then(
          (r) => r.status,
        ),
      ),
    );
    expect(burst.filter((s) => s === 401)).toHaveLength(5);
    expect(burst.filter((s) => s === 429)).toHaveLength(25);
    // The owner's right passphrase from another address, on a new client, still signs in, and
    // a right passphrase does not use up the address's budget: five sign-ins in a row pass.
    for (let i = 0; i < 6; i++) {
      const fresh = await authorizeUrl();
      const signedIn = await signIn(fresh.url, rightForm("owner"), "198.51.100.99");
      expect(signedIn.status, `sign-in ${i + 1}`).toBe(302);
    }
  });
});
