/**
 * The deployable Worker entry: wiring only. Routes, configuration and the status page live in
 * src/app/ (see app.ts); the demo API's Durable Object is exported for its binding.
 */
import { createApp } from "./app/app";
import { createWorker } from "./app/create-worker";
import { COMPACT_SPECS } from "./openapi/generated/specs";

export { DemoStore } from "./app/demo/demo-store";
export { OAuthStore } from "./app/oauth/oauth-store";

/** Bindings this Worker expects (declared in src/env.d.ts, configured in wrangler.jsonc). */
export type Env = Cloudflare.Env;

export default createWorker(createApp({ specs: COMPACT_SPECS }));
