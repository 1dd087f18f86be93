/**
 * The app's `/authorize` page for the OAuthProvider examples (the seed leaves `AuthHandler` to
 * the reader): it grants at once, with props naming the user, so a test can follow the real
 * register → authorize → token flow.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";

/** The user every grant names. */
export const USER_ID = "ana";

/** `defaultHandler` of the OAuthProvider examples: `/authorize` grants `USER_ID` at once. */
export const AuthHandler = {
  async fetch(request: Request, env: unknown) {
    if (new URL(request.url).pathname !== "/authorize") {
      return new Response("Not Found\n", { status: 404 });
    }
    const provider = (env as { OAUTH_PROVIDER: OAuthHelpers }).OAUTH_PROVIDER;
    const auth = await provider.parseAuthRequest(request);
    const { redirectTo } = await provider.completeAuthorization({
      request: auth,
      userId: USER_ID,
      metadata: {},
      scope: auth.scope,
      props: { userId: USER_ID },
    });
    return Response.redirect(redirectTo, 302);
  },
};
