/**
 * The 2025-11-25 wire of tasks (the protocol revision that defined them, before the 2026-07-28
 * extension replaced it), as our task objects speak it to 2025-era clients: the server
 * capability, the `Task` shape of `CreateTaskResult` / `tasks/get` / `tasks/cancel`, the
 * related-task `_meta` key, and the ids of the input requests a `tasks/result` stream asks.
 */
import type { TaskView } from "./task-wire";

/** `_meta` key that ties a message to its task (2025-11-25). */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/**
 * The `capabilities.tasks` a server with tasks declares to 2025-11-25 clients: task-augmented
 * `tools/call` and `tasks/cancel`. No `list`: a stateless endpoint has no session to scope a
 * listing to, and listing every anonymous caller's tasks would hand out ids that are the only
 * thing guarding them.
 */
export const LEGACY_TASKS_CAPABILITY = {
  cancel: {},
  requests: { tools: { call: {} } },
} as const;

/** A task as the 2025-11-25 revision shows it (`Task`). */
export interface LegacyTask {
  taskId: string;
  status: TaskView["status"];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
}

/**
 * The 2025-11-25 `Task` of one of our tasks (durations keep their values, under the 2025 names).
 * @param view - the task as the task object shows it
 */
export function legacyTask(view: TaskView): LegacyTask {
  return {
    taskId: view.taskId,
    status: view.status,
    ...(view.statusMessage !== undefined && { statusMessage: view.statusMessage }),
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttl: view.ttlMs,
    pollInterval: view.pollIntervalMs,
  };
}

const INPUT_ID_PREFIX = "task-input:";

/**
 * The JSON-RPC id of an input request a `tasks/result` stream sends: it names the task, the
 * input round and the key, so the client's answer (a POSTed JSON-RPC response, which may reach
 * any isolate) finds its way back to the task object.
 */
export function inputRequestId(taskId: string, inputRound: number, key: string): string {
  return `${INPUT_ID_PREFIX}${taskId}:${inputRound}:${key}`;
}

/** The task, round and key of an input request id, or undefined when it is not one of ours. */
export function parseInputRequestId(
  id: unknown,
): { taskId: string; inputRound: number; key: string } | undefined {
  if (typeof id !== "string" || !id.startsWith(INPUT_ID_PREFIX)) return undefined;
  const match = /^([^:]+):(\d+):(.+)$/s.exec(id.slice(INPUT_ID_PREFIX.length));
  if (match === null) return undefined;
  return { taskId: match[1]!, inputRound: Number(match[2]), key: match[3]! };
}
