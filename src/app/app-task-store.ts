/**
 * The product's task Durable Object (`MCP_TASKS`): {@link McpTaskStore} that can build the
 * product's MCP endpoints itself. A task object may start in an isolate that has not served an
 * MCP request yet, where the endpoints (and so the handlers its rounds run through) do not
 * exist; it builds them from the same configuration the Worker reads.
 */
import type { TaskRecord } from "../mcp/tasks/task-record";
import { McpTaskStore } from "../mcp/tasks/task-store";
import { taskRoundServer, type TaskRoundServer } from "../mcp/tasks/task-rounds";
import type { App } from "./app";
import { runAsCaller } from "./placement-caller";

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

    /**
     * A round's runs are placed for the caller that created the task (the key its place in the
     * ledger counts under: the request's `countAs`, else its owner), as that request's own runs
     * were. Run as nobody (this object has no request of the caller's), a local process's 16
     * tasks of blocking programs took every runner: another process's `search` waited 2.4–4.4 s
     * where it waited 0.25–0.38 s beside the same programs sent as plain calls (attack28).
     */
    protected override asCaller<T>(record: TaskRecord, round: () => Promise<T>): Promise<T> {
      return runAsCaller(record.countedAs ?? record.owner, round);
    }
  };
}
