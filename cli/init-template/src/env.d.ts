// The Worker's bindings (wrangler.jsonc) and secrets (.dev.vars locally, `wrangler secret put`
// deployed), as `env` from "cloudflare:workers" and the fetch handler's `env` see them.
declare namespace Cloudflare {
  interface Env {
    /** The Worker Loader: model-written code runs in isolates it creates. */
    LOADER: WorkerLoader;
    /** Where `execute` sends requests (wrangler.jsonc vars). */
    API_BASE_URL: string;
    /** The API's credential (secret); sent by src/api.ts, never seen by the sandbox. */
    API_TOKEN?: string;
    /** The MCP server /mcp/code wraps (wrangler.jsonc vars). */
    UPSTREAM_URL: string;
    /** The upstream MCP server's credential (secret). */
    UPSTREAM_TOKEN?: string;
  }
}
