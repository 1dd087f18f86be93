// The bindings of wrangler.jsonc (what `wrangler types` would write).
declare namespace Cloudflare {
  interface Env {
    LOADER: WorkerLoader;
    ADD_AGENT: DurableObjectNamespace;
    // Type-only: docs/examples/tasks-server.ts (copied in to type-check) reads it; not bound in wrangler.jsonc.
    MCP_TASKS: DurableObjectNamespace<import("code-mode-mcp").McpTaskStore>;
  }
}
