// The bindings the docs' examples read from `env` (import { env } from "cloudflare:workers"), as
// `wrangler types` would write them for a wrangler.jsonc that declares them; the package test runs
// the examples with them (test/package/examples/).
declare namespace Cloudflare {
  interface Env {
    LOADER: WorkerLoader;
    API_TOKEN: string;
    UPSTREAM_TOKEN: string;
    STATE_KEY: string;
    SPEC: string;
    RUNS_KV: KVNamespace;
    MCP_TASKS: DurableObjectNamespace<import("code-mode-mcp").McpTaskStore>;
  }
}
