/**
 * The OAuth client side of the tests' register → authorize → token flows against
 * `@cloudflare/workers-oauth-provider`: PKCE, the authorize query and the token exchange body.
 */

/** The redirect URI every test client registers. */
export const REDIRECT_URI = "http://127.0.0.1:9999/callback";

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A fresh PKCE pair: the verifier the client keeps and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/**
 * The query of an authorization-code request with PKCE (state `s` unless given).
 * @param clientId - the registered client
 * @param challenge - the PKCE challenge
 * @param extra - more parameters (`scope`, `state`)
 */
export function authorizeQuery(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
): URLSearchParams {
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
    ...extra,
  });
}

/**
 * The `/token` request exchanging an authorization code (PKCE, public client).
 * @param code - the code from the authorize redirect
 * @param clientId - the registered client
 * @param verifier - the PKCE verifier
 */
export function tokenRequest(code: string, clientId: string, verifier: string): RequestInit {
  return {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    }),
  };
}

/**
 * The passphrase the tests' user `user` sets at their first sign-in and sends at every later one
 * (src/app/oauth/user-passphrase.ts): one per name, so files sharing the OAuth store agree.
 * @param user - the user name
 */
export function userPassphrase(user: string): string {
  return `${user} own passphrase`;
}

/** What the flows below call: a Worker's fetch (the tests' `configured(...)`). */
type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * Registers a public client (dynamic client registration) and returns its id.
 * @param worker - the Worker with OAuth on
 * @param base - its origin
 */
export async function registerClient(worker: Fetch, base = "http://localhost"): Promise<string> {
  const registered = await worker(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test client",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  return ((await registered.json()) as { client_id: string }).client_id;
}

/**
 * The whole authorization-code flow for `user` through `clientId`, with the owner's passphrase:
 * the access token.
 * @param worker - the Worker with OAuth on
 * @param user - the user name typed on the consent page
 * @param clientId - a registered client
 * @param passphrase - the Worker's `OAUTH_PASSWORD`
 * @param base - its origin
 */
export async function accessToken(
  worker: Fetch,
  user: string,
  clientId: string,
  passphrase: string,
  base = "http://localhost",
): Promise<string> {
  const { verifier, challenge } = await pkce();
  const url = `${base}/authorize?${authorizeQuery(clientId, challenge, { scope: "mcp" })}`;
  const approved = await worker(url, {
    method: "POST",
    body: new URLSearchParams({ user, passphrase, user_passphrase: userPassphrase(user) }),
    redirect: "manual",
  });
  if (approved.status !== 302) throw new Error(`authorize answered ${approved.status}`);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const token = await worker(`${base}/token`, tokenRequest(code, clientId, verifier));
  if (token.status !== 200) throw new Error(`token answered ${token.status}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
