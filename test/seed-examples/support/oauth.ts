/**
 * The OAuth client side of the OAuthProvider examples: dynamic registration, the authorize
 * redirect (granted at once by support/auth-handler.ts), and the PKCE token exchange, all against
 * the example Worker's own fetch.
 */
import type { FetchLike } from "./clients";
import {
  authorizeQuery,
  pkce,
  REDIRECT_URI,
  tokenRequest,
} from "../../helpers/clients/oauth-client";

async function expectStatus(response: Response, status: number, step: string) {
  if (response.status !== status) {
    throw new Error(
      `${step}: expected ${status}, got ${response.status}: ${await response.text()}`,
    );
  }
}

/** What the OAuth flow produced. */
export interface Grant {
  /** The bearer token. */
  token: string;
  /** The dynamically registered client's id. */
  clientId: string;
  /** The scopes asked for (and granted by support/auth-handler.ts). */
  scopes: string[];
}

/** The scopes every grant asks for. */
export const SCOPES = ["notes:read"];

/**
 * Runs register → authorize → token against `fetch`.
 * @param fetch - the OAuthProvider Worker's fetch
 * @returns the access token, the client id and the granted scopes
 */
export async function grant(fetch: FetchLike): Promise<Grant> {
  const registered = await fetch("http://localhost/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "seed example test",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }),
  });
  await expectStatus(registered, 201, "register");
  const { client_id } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const params = authorizeQuery(client_id, challenge, { scope: SCOPES.join(" ") });
  const authorized = await fetch(`http://localhost/authorize?${params}`, { redirect: "manual" });
  await expectStatus(authorized, 302, "authorize");
  const code = new URL(authorized.headers.get("location")!).searchParams.get("code")!;
  const token = await fetch("http://localhost/token", tokenRequest(code, client_id, verifier));
  await expectStatus(token, 200, "token");
  const { access_token } = (await token.json()) as { access_token: string };
  return { token: access_token, clientId: client_id, scopes: SCOPES };
}

/**
 * Runs register → authorize → token against `fetch` and returns the access token.
 * @param fetch - the OAuthProvider Worker's fetch
 */
export async function accessToken(fetch: FetchLike): Promise<string> {
  return (await grant(fetch)).token;
}
