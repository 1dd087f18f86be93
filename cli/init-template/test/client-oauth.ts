// A real MCP client (SDK v2) talking to this Worker in-process: requests go to the Worker's own
// fetch handler inside the test runtime (workerd), so no port and no network are involved. It
// signs in as a client must: it registers, is approved on the consent page with the passphrase
// the test configuration gives the Worker (vitest.config.ts), and sends the access token.
// (`init --oauth` writes this file as test/client.ts.)
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env, exports } from "cloudflare:workers";

/** The Worker's fetch handler. */
export const worker = (
  exports as unknown as { default: { fetch(request: Request): Promise<Response> } }
).default;

/** Where the test client says its browser sign-in comes back to (never called). */
export const REDIRECT_URI = "http://127.0.0.1:9999/callback";

/** The Worker answering `url` (a path or a full URL). */
export function call(url: string, init?: RequestInit): Promise<Response> {
  return worker.fetch(new Request(new URL(url, "http://localhost"), init));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Registers a client (dynamic client registration), as an MCP client does first. */
export async function register(name = "test client"): Promise<string> {
  const response = await call("/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }),
  });
  if (response.status !== 201) throw new Error(`/register answered ${response.status}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The consent page's URL for `clientId` (with PKCE), and the verifier the client keeps. */
export async function authorizeUrl(clientId: string): Promise<{ url: string; verifier: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
    scope: "mcp",
    state: "s",
  });
  return { url: `/authorize?${query}`, verifier };
}

/** The consent form sent with `passphrase` (a browser's POST), from `address`. */
export function approve(url: string, passphrase: string, address = "192.0.2.1"): Promise<Response> {
  return call(url, {
    method: "POST",
    body: new URLSearchParams({ passphrase }),
    headers: { "cf-connecting-ip": address },
    redirect: "manual",
  });
}

/** The whole sign-in: register, approve with the Worker's passphrase, exchange the code. */
export async function signIn(): Promise<string> {
  const clientId = await register();
  const { url, verifier } = await authorizeUrl(clientId);
  const approved = await approve(url, env.OAUTH_PASSWORD);
  if (approved.status !== 302) throw new Error(`/authorize answered ${approved.status}`);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const token = await call("/token", {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  if (token.status !== 200) throw new Error(`/token answered ${token.status}`);
  return ((await token.json()) as { access_token: string }).access_token;
}

let token: Promise<string> | undefined;

/** The headers that let a request through: an access token (one sign-in per test file). */
export async function callerHeaders(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await (token ??= signIn())}` };
}

/**
 * Connects a client to one of the Worker's MCP endpoints.
 * @param path - `/mcp` or `/mcp/code`
 * @param headers - what to send (default: a signed-in client's token; `{}` sends none)
 */
export async function connect(path: string, headers?: Record<string, string>): Promise<Client> {
  const sent = headers ?? (await callerHeaders());
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: (url, init) => worker.fetch(new Request(url, init)),
      requestInit: { headers: sent },
    }),
  );
  return client;
}

/** The first text block of a tool result. */
export function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === "text")?.text ?? "";
}

/**
 * The first text block of a tool result, parsed as JSON. A result over the tool's limit (32 KB)
 * comes back cut where marked, with a note after it: that is reported as such, so a test asks for
 * less instead of failing on a JSON syntax error.
 */
export function json(result: unknown): unknown {
  const body = text(result);
  const note = body.search(/\n\n\[The result was \d+ bytes and was truncated/);
  if (note !== -1)
    throw new Error(`the result was truncated (return less): ${body.slice(note + 2, note + 200)}`);
  return JSON.parse(body || "null");
}
