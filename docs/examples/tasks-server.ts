// docs/hosting.md example "Tasks" (createMcpHandler with the tasks option). Kept in sync with
// docs/hosting.md by test/unit/docs-examples.test.ts and compiled by the typecheck.
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { createMcpHandler, McpTaskStore, setTaskSupport } from "code-mode-mcp/mcp/server";

// wrangler.jsonc: binding MCP_TASKS, class McpTasks, in a migration's new_sqlite_classes.
export class McpTasks extends McpTaskStore {}

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: "reports", version: "1.0.0" });
    const report = server.registerTool("report", { description: "A long report" }, async () => ({
      content: [{ type: "text", text: "done" }],
    }));
    // A task for clients that declare the extension; a plain call for the others.
    setTaskSupport(report, "optional");
    return server;
  },
  // Also: ttlMs (default one hour), pollIntervalMs (default 1 s), name (default the route),
  // limits (tasks running at once: default { perCaller: 16, total: 64 }).
  { tasks: { namespace: () => env.MCP_TASKS } },
);
export default {
  fetch: (request, _env, ctx) => handler(request, _env, ctx),
} satisfies ExportedHandler;
