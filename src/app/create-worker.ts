/**
 * The Worker's `fetch` export over the app router: plain, or behind
 * `@cloudflare/workers-oauth-provider` when `OAUTH=on` (see oauth/oauth-worker.ts).
 *
 * Security defaults: every request, on every route, must name an allowed host
 * (`ALLOWED_HOSTNAMES`, see allowed-hosts.ts) before anything else runs.
 */
import type { App } from "./app";
import { DEFAULT_ALLOWED_HOSTNAMES, refuseUnknownHost } from "./config/allowed-hosts";
import { renderHttpError, wantsHtml } from "./errors/http-error";
import { hostCollection } from "./host-collection";

/**
 * On `/health` answers where the host collects its garbage itself (host-collection.ts): how
 * many full collections it has run (the e2e soak reads it on the runtime's own port).
 */
export const COLLECTIONS_HEADER = "x-host-collections";

/**
 * Builds the Worker's exported handler.
 * @param app - the router from `createApp`
 */
export function createWorker(app: App): ExportedHandler<Cloudflare.Env> {
  const collection = hostCollection();
  const handle = async (
    request: Request,
    env: Cloudflare.Env,
    ctx: ExecutionContext,
  ): Promise<Response> => {
    const checked = app.config(env);
    // A broken configuration still refuses unknown hosts (with the defaults); /health then
    // names the problem to anyone reaching the server under an allowed name.
    try {
      refuseUnknownHost(
        request,
        checked.ok ? checked.config.allowedHostnames : DEFAULT_ALLOWED_HOSTNAMES,
      );
    } catch (error) {
      // Before the router: rendered by the same one renderer its routes use.
      return renderHttpError(error, wantsHtml(request));
    }
    if (checked.ok && checked.config.oauth) {
      // Loaded only when OAuth is on: the provider module prints a start-up notice on load.
      const { oauthFetch } = await import("./oauth/oauth-worker");
      return oauthFetch(app, request, env, ctx);
    }
    return app.route(request, env);
  };
  return {
    async fetch(request, env, ctx) {
      try {
        const response = await handle(request, env, ctx);
        if (!collection.enabled || new URL(request.url).pathname !== "/health") return response;
        // A copy: an answer's headers may be immutable.
        const counted = new Response(response.body, response);
        counted.headers.set(COLLECTIONS_HEADER, String(collection.collections));
        return counted;
      } finally {
        collection.afterRequest(ctx);
      }
    },
  };
}
