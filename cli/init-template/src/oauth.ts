// Who may call the MCP endpoints: clients that signed in with OAuth 2.1, through
// `@cloudflare/workers-oauth-provider` (the library Cloudflare's remote MCP templates use). An MCP
// client finds the sign-in itself: a request without a token gets `401` with a
// `WWW-Authenticate` header pointing at /.well-known/oauth-protected-resource; the client
// registers (/register), opens /authorize in the browser, where the owner approves it with the
// OAUTH_PASSWORD passphrase (src/consent.ts), and exchanges the code for a token (/token). Grants
// and tokens live in the OAUTH_KV namespace (created by the first `wrangler deploy`).
//
// The endpoints run code against your API with your credential, so nobody gets a token without
// the passphrase: a Worker without OAUTH_PASSWORD grants none.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { consent } from "./consent";
import { limitRegistration } from "./registration-limit";

/** A Worker fetch handler, as createMcpHandler returns it. */
type Handler = (request: Request, env: Cloudflare.Env, ctx: ExecutionContext) => Promise<Response>;

/**
 * The Worker: `routes` (path → MCP handler) need an access token; /authorize is the consent
 * page; everything else answers `landing` (200 at `/`, 404 elsewhere).
 * @param routes - the MCP endpoints, e.g. `{ "/mcp": apiHandler }`
 * @param landing - the text `/` answers
 */
export function withOAuth(
  routes: Record<string, Handler>,
  landing: string,
): ExportedHandler<Cloudflare.Env> {
  // The protected-resource metadata names the Worker's own origin (its workers.dev or custom
  // domain), known only per request: one provider per origin, so a token is good only there.
  const providers = new Map<string, OAuthProvider<Cloudflare.Env>>();
  const provider = (origin: string) => {
    let made = providers.get(origin);
    if (!made) {
      made = new OAuthProvider<Cloudflare.Env>({
        resourceMetadata: { resource: origin, resource_name: "MCP server" },
        apiHandlers: Object.fromEntries(
          Object.entries(routes).map(([path, handler]) => [path, { fetch: handler }]),
        ),
        defaultHandler: {
          fetch: (request, env) => {
            const { pathname } = new URL(request.url);
            if (pathname === "/authorize") return consent(request, env);
            return new Response(landing, { status: pathname === "/" ? 200 : 404 });
          },
        },
        authorizeEndpoint: "/authorize",
        tokenEndpoint: "/token",
        clientRegistrationEndpoint: "/register",
        scopesSupported: ["mcp"],
      });
      providers.set(origin, made);
    }
    return made;
  };
  return {
    async fetch(request, env, ctx) {
      const url = new URL(request.url);
      // Every registration is a KV write kept for good: bounded (src/registration-limit.ts).
      if (request.method === "POST" && url.pathname === "/register") {
        const refused = await limitRegistration(request, env);
        if (refused) return refused;
      }
      return provider(url.origin).fetch(request, env, ctx);
    },
  };
}
