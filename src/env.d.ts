// Bindings of this Worker (wrangler.jsonc), as seen by `import { env } from "cloudflare:workers"`
// and by the Worker's fetch handler. Add a binding here when you add it to wrangler.jsonc.
declare namespace Cloudflare {
  interface Env {
    /** Worker Loader binding: creates the sandbox isolates that run model-written code. */
    LOADER: WorkerLoader;
    /** The demo API's data (projects, tasks, comments) in SQLite. */
    DEMO_STORE: DurableObjectNamespace<import("./app/demo/demo-store").DemoStore>;
    /** OAuth grants and tokens when `OAUTH=on` and no `OAUTH_KV` namespace is bound. */
    OAUTH_STORE: DurableObjectNamespace<import("./app/oauth/oauth-store").OAuthStore>;
    /** Single-use MRTR approvals (`APPROVALS=on`): claimed approval ids in SQLite. */
    APPROVAL_LEDGER: DurableObjectNamespace<
      import("./app/approval-ledger-store").ApprovalLedgerStore
    >;
    /** The run history (`RUNS`): run records in SQLite, sharded by caller and day. */
    RUN_HISTORY: DurableObjectNamespace<import("./app/runs/run-store").RunStore>;
    /** MCP tasks (2026-07-28 extension): one SQLite Durable Object per task. */
    MCP_TASKS: DurableObjectNamespace<import("./mcp/tasks/task-store").McpTaskStore>;
    /** Optional KV namespace for the OAuth provider (preferred over OAUTH_STORE when bound). */
    OAUTH_KV?: KVNamespace;
    /** Product settings (vars and secrets); see src/app/config.ts. */
    SPEC?: string;
    APPROVALS?: string;
  }
}
