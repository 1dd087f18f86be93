/**
 * The conformance "everything" server: one fixture served through `createMcpHandler` at `/mcp`
 * by `wrangler dev -c test/conformance/wrangler.jsonc`. Both conformance lanes (2025 suite on
 * the stateless legacy lane, 2026-07-28 suite on the modern lane) hit this one endpoint.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { env as bindings } from "cloudflare:workers";
import { createMcpHandler, McpTaskStore, type McpServerFactoryContext } from "../../src/index";
import { fixtureServer, registerEverything } from "./everything-server";
import { registerStatelessProbes } from "./stateless-fixtures";
import { registerTaskTools } from "./task-fixtures";

/** The task Durable Object (binding MCP_TASKS): tasks outlive the request that created them. */
export class ConformanceTasks extends McpTaskStore {}

/** Test-only sealing key: the fixture has no secrets and runs in one local isolate. */
const FIXTURE_STATE_KEY = "conformance-fixture-request-state-key-not-a-secret";

function buildEverythingServer(ctx: McpServerFactoryContext): McpServer {
  const server = registerEverything(fixtureServer("code-mode-mcp-conformance"), ctx.requestState!);
  registerStatelessProbes(server, handler.notify);
  registerTaskTools(server);
  return server;
}

const handler = createMcpHandler(buildEverythingServer, {
  requestState: { key: FIXTURE_STATE_KEY },
  tasks: { namespace: () => bindings.MCP_TASKS },
  onerror: (error) => console.error(`[conformance] ${error.message}`),
});

export default {
  fetch: (request: Request, env: unknown, ctx: ExecutionContext) => handler(request, env, ctx),
} satisfies ExportedHandler;
