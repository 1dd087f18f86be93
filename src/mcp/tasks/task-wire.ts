/**
 * The wire vocabulary of the MCP tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`,
 * protocol revision 2026-07-28): the extension id, the task statuses and the shapes a task
 * takes on `tools/call` (`CreateTaskResult`) and `tasks/get` (`DetailedTask`).
 */

/** The extension id clients declare and servers advertise under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

/** A task's status: `working` and `input_required` are live, the other three are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses after which nothing changes any more. */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

/** A JSON-RPC error as a failed task inlines it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A task as `tasks/get` returns it (the `DetailedTask` shape, without the `resultType` the SDK
 * stamps). `result` only when completed, `error` only when failed, `inputRequests` only while
 * `input_required`; times are ISO-8601 strings, durations integer milliseconds.
 */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: TaskError;
  inputRequests?: Record<string, unknown>;
}

/**
 * The `CreateTaskResult` of a `tools/call` that became a task: flat (`Result & Task`), with
 * `resultType: "task"` and no `result`, `error` or `inputRequests`.
 * @param view - the task as just created
 * @returns the result object the tools/call handler returns
 */
export function createTaskResult(view: TaskView): Record<string, unknown> {
  const { result: _result, error: _error, inputRequests: _inputs, ...task } = view;
  return { resultType: "task", ...task };
}

/**
 * Whether a client declared the tasks extension, from the capabilities of the request (the
 * 2026-07-28 `_meta` envelope, which the SDK seeds into the server per request).
 * @param capabilities - `server.getClientCapabilities()`
 */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION_ID in extensions;
}
