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

/**
 * Builds the Worker's exported handler.
 * @param app - the router from `createApp`
 */
export function createWorker(app: App): ExportedHandler<Cloudflare.Env> {
  return {
    async fetch(request, env, ctx) {
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
    },
  };
}
