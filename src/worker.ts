/**
 * The deployable Worker entry: wiring only. Routes, configuration and the status page live in
 * src/app/ (see app.ts); the Durable Objects are exported for their bindings.
 */
import { createApp } from "./app/app";
import { appTaskStore } from "./app/app-task-store";
import { createWorker } from "./app/create-worker";
import { COMPACT_SPECS } from "./openapi/generated/specs";

export { DemoStore } from "./app/demo/demo-store";
export { OAuthStore } from "./app/oauth/oauth-store";
export { ApprovalLedgerStore } from "./app/approval-ledger-store";
export { RunStore } from "./app/runs/run-store";

/** Bindings this Worker expects (declared in src/env.d.ts, configured in wrangler.jsonc). */
export type Env = Cloudflare.Env;

const app = createApp({ specs: COMPACT_SPECS });

/** MCP tasks: one Durable Object per task, running `execute`/`code` calls past their request. */
export class McpTasks extends appTaskStore(app) {}

export default createWorker(app);
