/**
 * `SqlTaskStore`: the 2025-11-25 tasks store of SDK v1 (`taskStore` option of its `McpServer` /
 * `Server`, experimental in `@modelcontextprotocol/sdk`) in a Durable Object's SQLite, for
 * `McpAgent`: a session's tasks live in the session's own object, survive its eviction, and
 * expire after their TTL (rows past it are treated as gone and deleted as the store is used; no
 * timers, so a hibernating object stays asleep).
 *
 * ```ts
 * export class MyMCP extends McpAgent {
 *   server = new McpServer(info, {
 *     taskStore: new SqlTaskStore(this.ctx.storage.sql),
 *     capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
 *   });
 * }
 * ```
 */
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { CodeModeError } from "../../errors";

type Task = Awaited<ReturnType<TaskStore["createTask"]>>;
type Result = Awaited<ReturnType<TaskStore["getTaskResult"]>>;

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const PAGE_SIZE = 20;

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  session: string;
  task: string;
  result: string | null;
  expires_at: number | null;
}

/** An SDK v1 `TaskStore` over a Durable Object's SQLite (table `mcp_tasks`). */
export class SqlTaskStore implements TaskStore {
  private ready = false;

  /** @param sql - `this.ctx.storage.sql` of the Durable Object (an `McpAgent`) */
  constructor(private readonly sql: SqlStorage) {}

  /** Creates a task (TTL as requested; none means kept until deleted with the object). */
  async createTask(
    params: { ttl?: number | null; pollInterval?: number },
    _requestId: unknown,
    _request: unknown,
    sessionId?: string,
  ): Promise<Task> {
    const now = new Date().toISOString();
    const ttl = params.ttl ?? null;
    const task = {
      taskId: crypto.randomUUID(),
      status: "working",
      ttl,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: params.pollInterval ?? 1000,
    } as Task;
    this.table().exec(
      "INSERT INTO mcp_tasks (id, session, task, result, expires_at) VALUES (?, ?, ?, NULL, ?)",
      task.taskId,
      sessionId ?? "",
      JSON.stringify(task),
      ttl === null ? null : Date.now() + ttl,
    );
    return task;
  }

  /** The task, or null when unknown, expired or another session's. */
  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const row = this.row(taskId, sessionId);
    return row === undefined ? null : (JSON.parse(row.task) as Task);
  }

  /**
   * Stores the final result once; the TTL restarts from now.
   * @throws CodeModeError `"task_not_found"` for an unknown, expired or other session's task,
   *   `"task_conflict"` when the task already ended
   */
  async storeTaskResult(
    taskId: string,
    status: "completed" | "failed",
    result: Result,
    sessionId?: string,
  ): Promise<void> {
    const { row, task } = this.live(taskId, sessionId, "; its result was stored once.");
    this.write({ ...task, status }, JSON.stringify(result), row.session);
  }

  /**
   * The stored result.
   * @throws CodeModeError `"task_not_found"` for an unknown, expired or other session's task,
   *   `"task_conflict"` when it has no result yet
   */
  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const row = this.found(taskId, sessionId);
    if (row.result === null)
      throw new CodeModeError("task_conflict", `Task ${taskId} has no result yet.`);
    return JSON.parse(row.result) as Result;
  }

  /**
   * Moves a live task to `status` (a terminal task does not move).
   * @throws CodeModeError `"task_not_found"` for an unknown, expired or other session's task,
   *   `"task_conflict"` when the task already ended
   */
  async updateTaskStatus(
    taskId: string,
    status: Task["status"],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    const { row, task } = this.live(taskId, sessionId, ` and cannot become ${status}.`);
    this.write(
      { ...task, status, ...(statusMessage && { statusMessage }) },
      row.result,
      row.session,
    );
  }

  /**
   * A page of this session's live tasks, oldest first.
   * @throws CodeModeError `"invalid_query"` for a cursor that names no task
   */
  async listTasks(
    cursor?: string,
    sessionId?: string,
  ): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const after = cursor === undefined ? -1 : this.rowid(cursor);
    const rows = this.table()
      .exec<Row & { rowid: number }>(
        "SELECT rowid, * FROM mcp_tasks WHERE rowid > ? AND session = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY rowid LIMIT ?",
        after,
        sessionId ?? "",
        Date.now(),
        PAGE_SIZE + 1,
      )
      .toArray();
    const page = rows.slice(0, PAGE_SIZE);
    return {
      tasks: page.map((row) => JSON.parse(row.task) as Task),
      ...(rows.length > PAGE_SIZE && { nextCursor: page.at(-1)!.id }),
    };
  }

  private rowid(cursor: string): number {
    const row = this.table()
      .exec<{ rowid: number }>("SELECT rowid FROM mcp_tasks WHERE id = ?", cursor)
      .toArray()[0];
    if (row === undefined) throw new CodeModeError("invalid_query", `Invalid cursor: ${cursor}`);
    return row.rowid;
  }

  private write(task: Task, result: string | null, session: string): void {
    const updated = { ...task, lastUpdatedAt: new Date().toISOString() };
    const expires =
      updated.ttl === null || updated.ttl === undefined ? null : Date.now() + updated.ttl;
    this.table().exec(
      "UPDATE mcp_tasks SET task = ?, result = ?, expires_at = ? WHERE id = ? AND session = ?",
      JSON.stringify(updated),
      result,
      expires,
      updated.taskId,
      session,
    );
  }

  /** The row and task of a task that may still change; a terminal one is a `task_conflict`. */
  private live(
    taskId: string,
    sessionId: string | undefined,
    refusal: string,
  ): { row: Row; task: Task } {
    const row = this.found(taskId, sessionId);
    const task = JSON.parse(row.task) as Task;
    if (TERMINAL.has(task.status))
      throw new CodeModeError(
        "task_conflict",
        `Task ${taskId} is already ${task.status}${refusal}`,
      );
    return { row, task };
  }

  private found(taskId: string, sessionId?: string): Row {
    const row = this.row(taskId, sessionId);
    if (row === undefined)
      throw new CodeModeError("task_not_found", `Task ${taskId} not found (it may have expired).`);
    return row;
  }

  private row(taskId: string, sessionId?: string): Row | undefined {
    const row = this.table().exec<Row>("SELECT * FROM mcp_tasks WHERE id = ?", taskId).toArray()[0];
    if (row === undefined) return undefined;
    if (sessionId !== undefined && row.session !== "" && row.session !== sessionId)
      return undefined;
    if (row.expires_at !== null && row.expires_at <= Date.now()) return undefined;
    return row;
  }

  private table(): SqlStorage {
    if (!this.ready) {
      this.sql.exec(
        "CREATE TABLE IF NOT EXISTS mcp_tasks (id TEXT PRIMARY KEY, session TEXT NOT NULL, task TEXT NOT NULL, result TEXT, expires_at INTEGER)",
      );
      this.ready = true;
    }
    // Expired rows go a few at a time: the store stays cheap and needs no alarm.
    this.sql.exec(
      "DELETE FROM mcp_tasks WHERE id IN (SELECT id FROM mcp_tasks WHERE expires_at <= ? LIMIT 20)",
      Date.now(),
    );
    return this.sql;
  }
}
