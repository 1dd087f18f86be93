// The Worker's bindings (wrangler.jsonc) and secrets (.dev.vars locally, `wrangler secret put`
// deployed), as `env` from "cloudflare:workers" and the fetch handler's `env` see them. Secrets
// are typed `string`, as `wrangler types` types them; one that is not set is `undefined` at run
// time, and the code that reads it says so (src/caller-check.ts, code-mode-mcp's `secrets`).
declare namespace Cloudflare {
  interface Env {
    /** The Worker Loader: model-written code runs in isolates it creates. */
    LOADER: WorkerLoader;
    /** The key MCP clients send as `Authorization: Bearer <key>` (secret; src/caller-check.ts). */
    MCP_API_KEY: string;
    /** `on` serves MCP callers without a key (wrangler.jsonc vars); anything else refuses them. */
    ALLOW_ANONYMOUS?: string;
    /** `init --oauth`: the owner's passphrase the consent page asks for (secret; src/consent.ts). */
    OAUTH_PASSWORD: string;
    /** `init --oauth`: OAuth clients, grants and tokens (wrangler.jsonc kv_namespaces). */
    OAUTH_KV: KVNamespace;
    /** `init --oauth`: client registrations allowed per address per hour (default 10). */
    OAUTH_REGISTRATIONS_PER_HOUR?: string;
    /** `init --oauth`: client registrations allowed in total per day (default 1000). */
    OAUTH_REGISTRATIONS_PER_DAY?: string;
    /** `init --oauth`: the consent page's attempt counters (src/attempt-limiter.ts). */
    CONSENT_ATTEMPTS: DurableObjectNamespace<import("./attempt-limiter").ConsentAttempts>;
    /** Where `execute` sends requests (wrangler.jsonc vars). */
    API_BASE_URL: string;
    /** The API's credential (secret); sent by src/api.ts, never seen by the sandbox. */
    API_TOKEN: string;
    /** Seals the approval state between a client's rounds (secret, at least 32 bytes). */
    REQUEST_STATE_KEY: string;
    /** The MCP server /mcp/code wraps (wrangler.jsonc vars). */
    UPSTREAM_URL: string;
    /** The upstream MCP server's credential (secret). */
    UPSTREAM_TOKEN: string;
  }
}
