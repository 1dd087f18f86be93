// The steps of an OAuth grant against a local server with OAUTH=on, as a client makes them: a
// public client registered (RFC 7591), a PKCE pair (S256), the owner's consent form posted to
// /authorize, the code redeemed at /token. Scenarios that grant (skills: two real users) and
// scenarios that guess (oauth-guesses: new clients from forged addresses) take the same steps,
// so a change to the server's OAuth routes is met by both the same way.
import { check } from "./server.mjs";

/** @param {Uint8Array} bytes */
const base64url = (bytes) => Buffer.from(bytes).toString("base64url");

/**
 * A grant begun: the client registered and the PKCE pair made, the consent form not yet sent.
 * @typedef {object} BegunGrant
 * @property {string} url - the server
 * @property {string} clientId - the registered client's id
 * @property {string} redirectUri - where the client asked the code to be sent
 * @property {string} verifier - the PKCE verifier, for {@link redeemCode}
 * @property {URLSearchParams} query - the authorization request's query (S256 challenge, scope mcp)
 */

/**
 * Registers a new public client and makes its PKCE pair.
 * @param {string} url - the server
 * @param {{ clientName: string, redirectUri: string, headers?: Record<string, string>, send?: typeof fetch }} options -
 *   `headers` go with the registration (the guesses' forged addresses); `send` sends it (the
 *   guesses' own, from a chosen source address; default `fetch`)
 * @returns {Promise<BegunGrant>}
 */
export async function beginGrant(url, { clientName, redirectUri, headers = {}, send = fetch }) {
  const registered = await send(`${url}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    }),
  });
  check(registered.status === 201, `/register answered ${registered.status}`);
  const { client_id } = /** @type {{ client_id: string }} */ (await registered.json());
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const query = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "mcp",
    state: "s",
  });
  return { url, clientId: client_id, redirectUri, verifier, query };
}

/**
 * Posts the owner's consent form for a begun grant; the redirect is not followed, so the
 * answer's status and `location` (the code, or the refusal) are the caller's to check.
 * @param {BegunGrant} begun
 * @param {Record<string, string>} form - `user`, `passphrase` and any other field of the form
 * @param {Record<string, string>} [headers]
 * @param {typeof fetch} [send] - what sends it (default `fetch`)
 * @returns {Promise<Response>}
 */
export function submitConsent(begun, form, headers = {}, send = fetch) {
  return send(`${begun.url}/authorize?${begun.query}`, {
    method: "POST",
    headers,
    body: new URLSearchParams(form),
    redirect: "manual",
  });
}

/**
 * Redeems an authorization code at /token with the grant's PKCE verifier.
 * @param {BegunGrant} begun
 * @param {string} code
 * @returns {Promise<Response>}
 */
export function redeemCode(begun, code) {
  return fetch(`${begun.url}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: begun.redirectUri,
      client_id: begun.clientId,
      code_verifier: begun.verifier,
    }),
  });
}
