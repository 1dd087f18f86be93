// The consent page (/authorize): an MCP client that wants a token sends the owner here, in the
// browser. The page shows which client asks and where the grant will go (its redirect address),
// and grants only for the owner's passphrase, OAUTH_PASSWORD (compared in constant time, never
// echoed). Wrong passphrases are limited (src/attempt-limiter.ts), so it cannot be guessed at
// request speed. Nothing on the form decides what is granted: the authorization request is
// parsed again from the URL on submit.
//
// For real users, replace this page with your identity provider's sign-in and put the user's
// id (and, for per-user API credentials, their token) in `props`.
import type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { consentAttempts } from "./attempt-limiter";

/** The shortest OAUTH_PASSWORD that grants anything (the product's OAUTH=on asks the same). */
export const MIN_PASSPHRASE_LENGTH = 12;

/**
 * The largest consent form read, in bytes: the page's form is a few hundred bytes, and a body
 * read whole before any check would let a stranger spend the Worker's memory at will.
 */
export const MAX_CONSENT_FORM_BYTES = 16_384;

/** What the OAuth provider adds to the env of its handlers. */
type ConsentEnv = Cloudflare.Env & { OAUTH_PROVIDER: OAuthHelpers };

/**
 * Serves /authorize: the form on GET, the grant (a redirect back to the client) on a POST with
 * the right passphrase.
 * @param request - the browser's request
 * @param env - the Worker's bindings, with the provider's helpers
 */
export async function consent(request: Request, env: Cloudflare.Env): Promise<Response> {
  const { OAUTH_PROVIDER: oauth } = env as ConsentEnv;
  const passphrase = typeof env.OAUTH_PASSWORD === "string" ? env.OAUTH_PASSWORD : "";
  // A short passphrase falls to guessing despite the limit (5 per address per 15 minutes is
  // ~480 a day from each address, or from each /64), so it grants nothing, as none does.
  if (passphrase.length < MIN_PASSPHRASE_LENGTH)
    return page(
      503,
      "Sign-in is not set up",
      `This MCP server has ${passphrase === "" ? "no OAUTH_PASSWORD" : "an OAUTH_PASSWORD shorter than ${MIN_PASSPHRASE_LENGTH} characters"}, so it grants no one access. The owner sets one of at least ${MIN_PASSPHRASE_LENGTH} characters (e.g. <code>openssl rand -base64 32</code>) with <code>npx wrangler secret put OAUTH_PASSWORD</code> (.dev.vars for npm run dev).`,
    );
  let auth: AuthRequest;
  try {
    auth = await oauth.parseAuthRequest(request);
  } catch (error) {
    return page(
      400,
      "Invalid sign-in request",
      `${esc((error as Error).message)}. Start the sign-in again from your MCP client: it builds this link.`,
    );
  }
  const client = await oauth.lookupClient(auth.clientId);
  const name = client?.clientName ?? auth.clientId;
  if (request.method === "POST") {
    // The form is posted by this page itself. A post from another site's page (a form or a
    // `fetch`, neither preflighted) is refused before it counts as a guess: else a page the
    // owner merely visited could guess 5 times per 15 minutes and lock the owner's sign-in from
    // that address, again as long as the page stayed open.
    if (crossSite(request))
      return page(
        403,
        "Not from this page",
        "The approval came from another site's page. Start the sign-in again from your MCP client and approve it on this page.",
      );
    // Read (capped) before the guess is counted: a body too large is no guess, only refused.
    const form = await cappedForm(request);
    if (form === undefined)
      return page(
        413,
        "Form too large",
        `A consent form is at most ${MAX_CONSENT_FORM_BYTES} bytes. Go back and sign in from the consent page itself.`,
      );
    if (form === null)
      return page(
        400,
        "Not a form",
        "The approval must be this page's form. Go back and sign in from the consent page itself.",
      );
    const attempts = consentAttempts(env.CONSENT_ATTEMPTS, auth.clientId, request);
    // Counted before the check, so guesses sent at once are limited as guesses one by one are.
    const wait = await attempts.begin();
    if (wait > 0)
      return page(
        429,
        "Too many wrong passphrases",
        `Try again in ${Math.ceil(wait / 60)} minute(s).`,
        { "retry-after": String(wait) },
      );
    if (await samePassphrase(String(form.get("passphrase") ?? ""), passphrase)) {
      await attempts.succeeded();
      const { redirectTo } = await oauth.completeAuthorization({
        request: auth,
        userId: "owner",
        metadata: { label: name },
        scope: auth.scope,
        props: { userId: "owner", clientId: auth.clientId },
      });
      return Response.redirect(redirectTo, 302);
    }
    return page(
      401,
      "Wrong passphrase",
      "Go back and enter the owner passphrase (OAUTH_PASSWORD) again; after five wrong ones the form locks for 15 minutes.",
    );
  }
  const url = new URL(request.url);
  return page(
    200,
    `Allow ${esc(name)}?`,
    `<p><b>${esc(name)}</b> asks to use this MCP server, which runs code against its API with the owner's credentials. The grant goes to <code>${esc(auth.redirectUri)}</code>: approve only if you started this sign-in from that client.</p>
<form method="post" action="${esc(url.pathname + url.search)}">
<p><label>Owner passphrase (OAUTH_PASSWORD) <input name="passphrase" type="password" autocomplete="current-password" required></label></p>
<p><button type="submit">Approve</button></p>
</form>`,
  );
}

/**
 * Whether a browser sent the request from another site's page: its `Origin` (a browser sends one
 * with every POST) is not this server's own host. No `Origin` (not a browser's cross-site
 * request) passes; so does a page on this machine posting to this machine (`wrangler dev`).
 * An opaque `null` origin (a sandboxed frame, a `file:` page) is another site.
 * @param request - a POST to the consent page
 */
export function crossSite(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  const own = new URL(request.url).hostname;
  let from: string;
  try {
    if (!/^https?:\/\/[^/]+$/i.test(origin.trim())) return true;
    from = new URL(origin.trim()).hostname;
  } catch {
    return true;
  }
  return from !== own && !(isLocal(from) && isLocal(own));
}

/** Whether a hostname names this machine. */
function isLocal(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Whether the passphrase sent is the owner's, in constant time (both are hashed first). */
async function samePassphrase(sent: string, expected: string): Promise<boolean> {
  if (sent === "") return false;
  const hash = (text: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const [a, b] = await Promise.all([hash(sent), hash(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** An HTML page that no other site may frame (so the Approve button cannot be clickjacked). */
function page(
  status: number,
  title: string,
  body: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body style="font:15px system-ui;max-width:36rem;margin:3rem auto"><h1>${title}</h1>${body.startsWith("<") ? body : `<p>${body}</p>`}</body></html>`,
    {
      status,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "x-frame-options": "DENY",
        "content-security-policy": "frame-ancestors 'none'",
        ...headers,
      },
    },
  );
}

/** Text as HTML. */
function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * The posted form, read up to {@link MAX_CONSENT_FORM_BYTES} bytes whatever its declared length
 * says (a chunked body declares none): undefined past the cap, null when it is not a form.
 * @param request - the consent page's POST
 */
async function cappedForm(request: Request): Promise<FormData | null | undefined> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_CONSENT_FORM_BYTES) {
    await request.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body?.getReader();
  for (
    let read = await reader?.read();
    read !== undefined && !read.done;
    read = await reader?.read()
  ) {
    size += read.value.byteLength;
    if (size > MAX_CONSENT_FORM_BYTES) {
      await reader?.cancel();
      return undefined;
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  const type = request.headers.get("content-type");
  try {
    return await new Response(
      bytes,
      type === null ? {} : { headers: { "content-type": type } },
    ).formData();
  } catch {
    return null;
  }
}
