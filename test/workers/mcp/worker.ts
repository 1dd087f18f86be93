/**
 * Test Worker of the `mcp` project (test/workers/mcp/): only the task Durable Object its tests
 * bind as `MCP_TASKS`. The tests register their handlers by name in the same isolate, so the
 * plain {@link McpTaskStore} finds them; none of the product (routes, specs, OAuth) is loaded.
 */
import { McpTaskStore } from "../../../src/mcp/tasks/task-store";

/** MCP tasks: one Durable Object per task, running the tests' handlers past their request. */
export class McpTasks extends McpTaskStore {}

export default {
  fetch: () => new Response("code-mode-mcp mcp test worker", { status: 404 }),
} satisfies ExportedHandler;
