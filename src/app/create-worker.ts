/**
 * The Worker's `fetch` export over the app router: plain, or behind
 * `@cloudflare/workers-oauth-provider` when `OAUTH=on` (see oauth/oauth-worker.ts).
 */
import type { App } from "./app";

/**
 * Builds the Worker's exported handler.
 * @param app - the router from `createApp`
 */
export function createWorker(app: App): ExportedHandler<Cloudflare.Env> {
  return {
    async fetch(request, env, ctx) {
      const checked = app.config(env);
      if (checked.ok && checked.config.oauth) {
        // Loaded only when OAuth is on: the provider module prints a start-up notice on load.
        const { oauthFetch } = await import("./oauth/oauth-worker");
        return oauthFetch(app, request, env, ctx);
      }
      return app.route(request, env);
    },
  };
}
