/**
 * A task as its Durable Object stores it (one JSON row), and the views derived from it: what
 * `tasks/get` shows and the inlined result of a completed task.
 */
import type { RoundCall, RoundOutcome } from "./task-rounds";
import type { TaskError, TaskStatus, TaskView } from "./task-wire";
import { PROTOCOL_CODES } from "../../errors";

/** What the handler passes when it creates a task. */
export interface TaskInit {
  taskId: string;
  /** The registered name of the handler that runs the rounds. */
  handler: string;
  /** Who may read, answer and cancel the task (the creating client's id; "" when anonymous). */
  owner: string;
  /**
   * Who the task counts as in the per-caller bound on running tasks (task-places.ts), when not
   * its owner: the caller the handler's `countAs` named (e.g. one local process among the
   * anonymous). Kept so a resumed round takes its place under the same caller.
   */
  countedAs?: string;
  call: RoundCall;
  /** The creating request's `authInfo` as JSON, so later rounds run as the same caller. */
  authInfo?: string;
  ttlMs: number;
  pollIntervalMs: number;
}

/** The stored task: what it was created with, where it is, and what it ended with. */
export interface TaskRecord extends TaskInit {
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  updatedAt: number;
  pending?: Record<string, unknown>;
  answers?: Record<string, unknown>;
  requestState?: string;
  /** How many times the task has asked for input (numbers the 2025-era input requests). */
  inputRound?: number;
  result?: Record<string, unknown>;
  error?: TaskError;
}

/** A round outcome that failed before or outside the tool (JSON-RPC internal error). */
export function failure(message: string): RoundOutcome {
  return { kind: "error", error: { code: PROTOCOL_CODES.internalError, message } };
}

/**
 * The tool result as a completed task inlines it: the complete `CallToolResult` of the round
 * (with its `resultType: "complete"`, which the tasks requester validates), minus the v1
 * related-task `_meta` the extension forbids there.
 */
export function taskResult(result: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...result };
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && "io.modelcontextprotocol/related-task" in meta) {
    const { "io.modelcontextprotocol/related-task": _related, ...others } = meta;
    rest._meta = others;
  }
  return rest;
}

/** The task as `tasks/get` shows it: `result`, `error`, `inputRequests` only in their status. */
export function view(record: TaskRecord): TaskView {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && {
      statusMessage: record.statusMessage,
    }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
    ...(record.status === "completed" && record.result !== undefined && { result: record.result }),
    ...(record.status === "failed" && record.error !== undefined && { error: record.error }),
    ...(record.status === "input_required" && {
      inputRequests: record.pending ?? {},
    }),
  };
}
