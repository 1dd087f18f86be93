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
