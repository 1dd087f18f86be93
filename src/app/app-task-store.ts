/**
 * The product's task Durable Object (`MCP_TASKS`): {@link McpTaskStore} that can build the
 * product's MCP endpoints itself. A task object may start in an isolate that has not served an
 * MCP request yet, where the endpoints (and so the handlers its rounds run through) do not
 * exist; it builds them from the same configuration the Worker reads.
 */
import { McpTaskStore } from "../mcp/tasks/task-store";
import { taskRoundServer, type TaskRoundServer } from "../mcp/tasks/task-rounds";
import type { App } from "./app";

/**
 * The task object class for `app`.
 * @param app - the router from `createApp`
 * @returns a Durable Object class to export under the binding's `class_name`
 */
export function appTaskStore(app: App): typeof McpTaskStore {
  return class AppTaskStore extends McpTaskStore {
    protected override resolveServer(name: string): TaskRoundServer | undefined {
      const registered = taskRoundServer(name);
      if (registered !== undefined) return registered;
      app.endpoints(this.env as Cloudflare.Env);
      return taskRoundServer(name);
    }
  };
}
