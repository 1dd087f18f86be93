/**
 * The Worker's `fetch` export over the app router: plain, or behind
 * `@cloudflare/workers-oauth-provider` when `OAUTH=on` (see oauth.ts).
 */
import type { App } from "./app";
import { oauthFetch } from "./oauth/oauth-worker";

/**
 * Builds the Worker's exported handler.
 * @param app - the router from `createApp`
 */
export function createWorker(app: App): ExportedHandler<Cloudflare.Env> {
  return {
    fetch(request, env, ctx) {
      const checked = app.config(env);
      if (checked.ok && checked.config.oauth) return oauthFetch(app, request, env, ctx);
      return app.route(request, env);
    },
  };
}
