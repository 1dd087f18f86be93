/**
 * Test Worker of the `mcp` project (test/workers/mcp/): only the task Durable Object its tests
 * bind as `MCP_TASKS`. The tests register their handlers by name in the same isolate, so the
 * plain {@link McpTaskStore} finds them; none of the product (routes, specs, OAuth) is loaded.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { TaskRecord } from "../../../src/mcp/tasks/task-record";
import { McpTaskStore } from "../../../src/mcp/tasks/task-store";

/**
 * The caller each task round runs as ({@link McpTaskStore.asCaller}), as the product's store runs
 * it (src/app/app-task-store.ts): the tools read it to tell which caller their round belongs to.
 */
export const roundCaller = new AsyncLocalStorage<string>();

/** MCP tasks: one Durable Object per task, running the tests' handlers past their request. */
export class McpTasks extends McpTaskStore {
  protected override asCaller<T>(record: TaskRecord, round: () => Promise<T>): Promise<T> {
    return roundCaller.run(record.countedAs ?? record.owner, round);
  }
}

export default {
  fetch: () => new Response("code-mode-mcp mcp test worker", { status: 404 }),
} satisfies ExportedHandler;
