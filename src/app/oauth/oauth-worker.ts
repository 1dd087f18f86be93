/**
 * OAuth in front of the MCP routes (`OAUTH=on`), with `@cloudflare/workers-oauth-provider`:
 * discovery, dynamic client registration (`/register`), `/token`, and a small `/authorize`
 * consent page that asks for the owner's passphrase (`OAUTH_PASSWORD`) before granting.
 * Verified grants reach MCP handlers as `authInfo` (`context.http.authInfo`) and through
 * `getMcpAuthContext()` (props `{ userId, clientId, scopes }`).
 *
 * Security defaults: `/mcp`, `/mcp/code`, `/api/search`, `/api/runs`, `/api/skills` and `/demo-api` need a valid access
 * token; the passphrase is compared in constant time and never echoed; the consent form
 * re-parses the original authorization request on submit (nothing is rebuilt from form
 * fields). Storage: the `OAUTH_KV` namespace when bound, else the `OAUTH_STORE` Durable Object.
 *
 * Wrong passphrases are limited per client and per address (attempt-limiter.ts). Each user name
 * is bound to a passphrase of its own, set by its first grant (user-passphrase.ts), so holding
 * `OAUTH_PASSWORD` does not let one user sign in as another.
 * Wrong passphrases are limited per client and per address (attempt-limiter.ts); client
 * registrations per address per hour and in total per day (registration-limiter.ts).
 *
 * Does not do: federate to an identity provider (swap `/authorize` for your IdP's flow and put
 * the user's upstream token in `props` for per-user credentials).
 */
import {
  OAuthProvider,
  type AuthRequest,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { authInfoFromOAuthProps } from "../../mcp/common/auth-context";
import type { App } from "../app";
import { HttpError, renderHttpError } from "../errors/http-error";
import { cappedBodyBytes } from "../errors/capped-body";
import { consentAttempts } from "./attempt-limiter";
import { refuseCrossSite } from "../cross-site";
import { countRegistration } from "./registration-limiter";
import { storeKv } from "./store-kv";
import { checkUserPassphrase, MIN_USER_PASSPHRASE } from "./user-passphrase";
import { readSettings } from "../config/setting-table";
import type { AppSettings } from "../config/config";

/** Routes that need an access token when OAuth is on. */
export const OAUTH_API_ROUTES = ["/mcp", "/api/search", "/api/runs", "/api/skills", "/demo-api"];

/**
 * The most bytes the consent form's POST may carry: its three fields (a name of at most
 * {@link MAX_USER_ID} URL-encoded characters and two passphrases) fit many times over. The local
 * front caps every such body at 64 KiB; the deployed Worker read `formData()` whole, however large.
 */
export const MAX_CONSENT_FORM_BYTES = 16_384;

/** Longest user id (the URL-encoded name) a grant may carry: owners keep this many characters. */
export const MAX_USER_ID = 200;

const providers = new WeakMap<App, Map<string, OAuthProvider<Cloudflare.Env>>>();

/**
 * Serves a request through the OAuth provider.
 * @param app - the router
 * @param request - the request
 * @param env - bindings and settings
 * @param ctx - the execution context (the provider puts the grant's props on `ctx.props`)
 */
export async function oauthFetch(
  app: App,
  request: Request,
  env: Cloudflare.Env,
  ctx: ExecutionContext,
): Promise<Response> {
  // The protected-resource metadata names this Worker's own origin, known only per request.
  const origin = new URL(request.url).origin;
  let byOrigin = providers.get(app);
  if (!byOrigin) providers.set(app, (byOrigin = new Map()));
  let provider = byOrigin.get(origin);
  if (!provider) {
    provider = new OAuthProvider<Cloudflare.Env>({
      resourceMetadata: { resource: origin, resource_name: "Code Mode MCP server" },
      apiRoute: OAUTH_API_ROUTES,
      apiHandler: {
        fetch: (req, e, c) =>
          app.route(req, e as Cloudflare.Env, authInfoFromOAuthProps(req, c.props)),
      },
      defaultHandler: {
        fetch: (req, e) => {
          const url = new URL(req.url);
          // A page for people: its errors are the one HTTP error's HTML page.
          if (url.pathname === "/authorize")
            return authorize(req, e as Cloudflare.Env).catch((error: unknown) =>
              renderHttpError(error, true),
            );
          return app.route(req, e as Cloudflare.Env);
        },
      },
      authorizeEndpoint: "/authorize",
      tokenEndpoint: "/token",
      clientRegistrationEndpoint: "/register",
      scopesSupported: ["mcp"],
    });
    byOrigin.set(origin, provider);
  }
  // OAUTH_KV is optional, so wrangler.jsonc does not bind it and `wrangler types` cannot know it.
  const bound = (env as OptionalBindings).OAUTH_KV;
  const withKv = bound ? env : { ...env, OAUTH_KV: storeKv(env.OAUTH_STORE) };
  if (request.method === "POST" && new URL(request.url).pathname === "/register") {
    // Counted before the provider stores anything (registration-limiter.ts).
    const { values } = readSettings(env as unknown as AppSettings);
    try {
      // Another site's page (a text/plain POST needs no preflight, and the provider answers
      // any origin's) filled the address's hour of registrations: on a local server every
      // client's, so no new client could sign in for an hour, again as long as the page stayed
      // open (attack10). Such a client could never use the MCP routes, which refuse a foreign
      // Origin the same way (src/mcp/common/guards.ts): refused before it counts.
      refuseCrossSite(request);
      await countRegistration(env.OAUTH_STORE, request, {
        perHour: values.OAUTH_REGISTRATIONS_PER_HOUR,
        perDay: values.OAUTH_REGISTRATIONS_PER_DAY,
      });
    } catch (error) {
      return renderHttpError(error, false);
    }
  }
  return provider.fetch(request, withKv, ctx);
}

/** Bindings a deployment may add that wrangler.jsonc does not declare. */
type OptionalBindings = Cloudflare.Env & { OAUTH_KV?: KVNamespace };

/** What the provider adds to the env of its handlers (always a KV), plus the consent setting. */
type OAuthEnv = Cloudflare.Env & {
  OAUTH_KV: KVNamespace;
  OAUTH_PASSWORD?: string;
  OAUTH_PROVIDER: OAuthHelpers;
};

async function authorize(request: Request, env: Cloudflare.Env): Promise<Response> {
  const oauthEnv = env as OAuthEnv;
  let auth: AuthRequest;
  try {
    auth = await oauthEnv.OAUTH_PROVIDER.parseAuthRequest(request);
  } catch (error) {
    throw new HttpError(
      400,
      "invalid_authorization",
      `Invalid authorization request: ${(error as Error).message}`,
      "Start the sign-in again from your MCP client; it builds the authorization link.",
    );
  }
  const client = await oauthEnv.OAUTH_PROVIDER.lookupClient(auth.clientId);
  const clientName = client?.clientName ?? auth.clientId;
  if (request.method === "POST") {
    // The form is posted by the consent page itself: a post from another site's page (a form or
    // a `fetch`, neither preflighted) is refused before it counts as a guess. A page the user
    // merely visited locked the owner's sign-in (5 wrong posts: every client from that address
    // got 429 for 15 minutes, again as long as the page stayed open) and guessed 5 times per
    // 15 minutes (attack10; cross-site.ts).
    refuseCrossSite(request);
    const attempts = consentAttempts(env.OAUTH_STORE, auth.clientId, request);
    // Counted before the check, so a burst sent at once is limited as guesses one by one are.
    const wait = await attempts.begin();
    if (wait > 0)
      throw new HttpError(
        429,
        "too_many_attempts",
        "Too many wrong passphrases.",
        `Try again in ${Math.ceil(wait / 60)} minute(s).`,
        { "retry-after": String(wait) },
      );
    const form = await consentForm(request).catch(async (error: unknown) => {
      // Nothing was checked: this is no guess.
      await attempts.succeeded();
      throw error;
    });
    const user = String(form.get("user") ?? "").trim() || "owner";
    // Skills and runs name their owner by the id cut to MAX_USER_ID characters
    // (skill-owner.ts, runs/caller.ts), the passphrase binds the whole id: a longer id let
    // "<someone's long name>x", a new user, reach that someone's skills and runs.
    if (encodeURIComponent(user).length > MAX_USER_ID) {
      // Nothing was checked: this is no guess.
      await attempts.succeeded();
      throw new HttpError(
        400,
        "user_name_too_long",
        `The user name is too long: at most ${MAX_USER_ID} characters once URL-encoded (a letter outside ASCII takes 6 to 12).`,
        "Go back and sign in under a shorter name.",
      );
    }
    if (await samePassphrase(String(form.get("passphrase") ?? ""), oauthEnv.OAUTH_PASSWORD)) {
      const userId = encodeURIComponent(user);
      // The name is bound to its own passphrase (user-passphrase.ts): the owner's passphrase
      // alone does not let one user sign in as another. A wrong one stays counted.
      const own = await checkUserPassphrase(
        env.OAUTH_STORE,
        userId,
        String(form.get("user_passphrase") ?? ""),
      );
      if (own === "wrong")
        throw new HttpError(
          401,
          "wrong_passphrase",
          `Wrong passphrase for the user "${user.slice(0, 100)}".`,
          "Enter the passphrase you set at your first sign-in under this name, or sign in under another name; after five wrong ones the form locks for a while.",
        );
      if (own === "too_short")
        throw new HttpError(
          400,
          "user_passphrase_needed",
          `The first sign-in as "${user.slice(0, 100)}" sets that user's own passphrase: it needs at least ${MIN_USER_PASSPHRASE} characters.`,
          "Go back and enter a passphrase of your own (it is asked at every later sign-in under this name).",
        );
      await attempts.succeeded();
      const { redirectTo } = await oauthEnv.OAUTH_PROVIDER.completeAuthorization({
        request: auth,
        userId,
        metadata: { label: user },
        scope: auth.scope,
        props: { userId, clientId: auth.clientId, scopes: auth.scope },
      });
      return Response.redirect(redirectTo, 302);
    }
    throw new HttpError(
      401,
      "wrong_passphrase",
      "Wrong passphrase.",
      "Go back to the form and enter the owner passphrase (OAUTH_PASSWORD) again; after five wrong ones the form locks for a while.",
    );
  }
  const url = new URL(request.url);
  // The client names itself at /register, so the name proves nothing: a stranger registers
  // "Claude" with a redirect of their own and sends the owner the link. Where the code goes is
  // what the owner can check, so the page shows it.
  return page(
    `<h1>Authorize ${esc(clientName)}</h1>
<p>${esc(clientName)} asks to use this Code Mode MCP server${auth.scope.length ? ` (scopes: ${esc(auth.scope.join(", "))})` : ""}. The grant goes to <code>${esc(auth.redirectUri)}</code>: approve only if you started this sign-in from that client.</p>
<form method="post" action="${esc(url.pathname + url.search)}">
<p><label>Your name <input name="user" autocomplete="username"></label></p>
<p><label>Your passphrase (your first sign-in under this name sets it) <input name="user_passphrase" type="password" autocomplete="new-password"></label></p>
<p><label>Owner passphrase (OAUTH_PASSWORD) <input name="passphrase" type="password" autocomplete="current-password"></label></p>
<p><button type="submit">Approve</button></p>
</form>`,
  );
}

/**
 * The posted form, read up to {@link MAX_CONSENT_FORM_BYTES} (`413 body_too_large` past it) and
 * parsed as `request.formData()` would (URL-encoded or multipart, by its `Content-Type`).
 */
async function consentForm(request: Request): Promise<FormData> {
  const bytes = await cappedBodyBytes(
    request,
    MAX_CONSENT_FORM_BYTES,
    "Go back and sign in from the consent page itself: its form is a few hundred bytes.",
  );
  const type = request.headers.get("content-type");
  return new Response(bytes, type === null ? {} : { headers: { "content-type": type } }).formData();
}

async function samePassphrase(sent: string, expected: string | undefined): Promise<boolean> {
  if (!expected || !sent) return false;
  const hash = (t: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(t));
  const [a, b] = await Promise.all([hash(sent), hash(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

function page(body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize</title></head><body style="font:15px system-ui;max-width:36rem;margin:3rem auto">${body}</body></html>`,
    {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "x-frame-options": "DENY",
        "content-security-policy": "frame-ancestors 'none'",
      },
    },
  );
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}
