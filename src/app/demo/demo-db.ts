/**
 * The demo data set (projects, tasks, comments) in a Durable Object's SQLite.
 *
 * Tables: `projects(id, name, description, status, created_at, updated_at)`,
 * `tasks(id, project_id → projects, title, description, status, priority, assignee, due_date, …)`,
 * `comments(id, task_id → tasks, author, body, created_at)`. Ids are SQLite integer keys.
 * Deleting a project deletes its tasks and their comments (explicitly: SQLite foreign-key
 * cascades are not relied upon). A fresh store is seeded once with a small data set, so a fresh
 * `npm start` has something to query.
 *
 * Pagination is keyset-based: `cursor` is the last id of the previous page, as text, so pages
 * stay stable while rows are added.
 */
import {
  commentFromRow,
  taskFromRow,
  type Comment,
  type Page,
  type Project,
  type Row,
  type Task,
} from "./demo-rows";
import { SEED_PROJECTS } from "./demo-seed";

export type { Comment, Page, Project, Task };

/** Filters of a list query; `undefined` fields do not filter. */
export type Filters = Record<string, string | number | undefined>;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projects (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL,
  title TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, priority TEXT NOT NULL,
  assignee TEXT, due_date TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tasks_project ON tasks(project_id);
CREATE TABLE IF NOT EXISTS comments (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id INTEGER NOT NULL,
  author TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS comments_task ON comments(task_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Column name of each filterable or writable field. */
const COLUMNS: Record<string, string> = {
  name: "name",
  description: "description",
  status: "status",
  projectId: "project_id",
  taskId: "task_id",
  title: "title",
  priority: "priority",
  assignee: "assignee",
  dueDate: "due_date",
  author: "author",
  body: "body",
};

/** Typed access to the demo tables. */
export class DemoDb {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
    if (sql.exec("SELECT value FROM meta WHERE key = 'seeded'").toArray().length === 0) this.seed();
  }

  /** Lists projects, newest first. `q` matches a name substring. */
  listProjects(filters: Filters, limit: number, cursor: number | undefined): Page<Project> {
    return this.page("projects", filters, "name", limit, cursor, "DESC", (r) => this.project(r));
  }

  /** One project, or undefined. */
  getProject(id: number): Project | undefined {
    const row = this.one("SELECT * FROM projects WHERE id = ?", id);
    return row && this.project(row);
  }

  /** Inserts a project (status defaults to active). */
  createProject(input: Record<string, unknown>): Project {
    const now = new Date().toISOString();
    const row = this.one(
      "INSERT INTO projects (name, description, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING *",
      String(input.name),
      String(input.description ?? ""),
      String(input.status ?? "active"),
      now,
      now,
    )!;
    return this.project(row);
  }

  /** Applies a checked patch; undefined when the project does not exist. */
  updateProject(id: number, patch: Record<string, unknown>): Project | undefined {
    return this.update("projects", id, patch) ? this.getProject(id) : undefined;
  }

  /** Deletes a project, its tasks and their comments; false when absent. */
  deleteProject(id: number): boolean {
    if (!this.getProject(id)) return false;
    this.sql.exec(
      "DELETE FROM comments WHERE task_id IN (SELECT id FROM tasks WHERE project_id = ?)",
      id,
    );
    this.sql.exec("DELETE FROM tasks WHERE project_id = ?", id);
    this.sql.exec("DELETE FROM projects WHERE id = ?", id);
    return true;
  }

  /** Lists tasks, newest first. `q` matches a title substring. */
  listTasks(filters: Filters, limit: number, cursor: number | undefined): Page<Task> {
    return this.page("tasks", filters, "title", limit, cursor, "DESC", taskFromRow);
  }

  /** One task, or undefined. */
  getTask(id: number): Task | undefined {
    const row = this.one("SELECT * FROM tasks WHERE id = ?", id);
    return row && taskFromRow(row);
  }

  /** Inserts a task (status todo, priority medium by default). */
  createTask(input: Record<string, unknown>): Task {
    const now = new Date().toISOString();
    const row = this.one(
      `INSERT INTO tasks (project_id, title, description, status, priority, assignee, due_date, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      Number(input.projectId),
      String(input.title),
      String(input.description ?? ""),
      String(input.status ?? "todo"),
      String(input.priority ?? "medium"),
      (input.assignee as string | null | undefined) ?? null,
      (input.dueDate as string | null | undefined) ?? null,
      now,
      now,
    )!;
    return taskFromRow(row);
  }

  /** Applies a checked patch; undefined when the task does not exist. */
  updateTask(id: number, patch: Record<string, unknown>): Task | undefined {
    return this.update("tasks", id, patch) ? this.getTask(id) : undefined;
  }

  /** Deletes a task and its comments; false when absent. */
  deleteTask(id: number): boolean {
    if (!this.getTask(id)) return false;
    this.sql.exec("DELETE FROM comments WHERE task_id = ?", id);
    this.sql.exec("DELETE FROM tasks WHERE id = ?", id);
    return true;
  }

  /** Lists a task's comments, oldest first. */
  listComments(taskId: number, limit: number, cursor: number | undefined): Page<Comment> {
    return this.page("comments", { taskId }, "body", limit, cursor, "ASC", commentFromRow);
  }

  /** Inserts a comment on an existing task. */
  addComment(taskId: number, input: Record<string, unknown>): Comment {
    const row = this.one(
      "INSERT INTO comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?) RETURNING *",
      taskId,
      String(input.author),
      String(input.body),
      new Date().toISOString(),
    )!;
    return commentFromRow(row);
  }

  /** Deletes a comment; false when absent. */
  deleteComment(id: number): boolean {
    return this.sql.exec("DELETE FROM comments WHERE id = ?", id).rowsWritten > 0;
  }

  private page<T>(
    table: string,
    filters: Filters,
    searchColumn: string,
    limit: number,
    cursor: number | undefined,
    order: "ASC" | "DESC",
    map: (row: Row) => T,
  ): Page<T> {
    const where: string[] = [];
    const args: SqlStorageValue[] = [];
    for (const [key, value] of Object.entries(filters)) {
      if (value === undefined) continue;
      if (key === "q") {
        where.push(`${searchColumn} LIKE ? ESCAPE '\\'`);
        args.push(`%${String(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      } else {
        where.push(`${COLUMNS[key]!} = ?`);
        args.push(value);
      }
    }
    const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const total = Number(this.one(`SELECT count(*) AS n FROM ${table} ${filter}`, ...args)!.n);
    const keyset =
      cursor === undefined
        ? ""
        : `${filter ? "AND" : "WHERE"} id ${order === "DESC" ? "<" : ">"} ?`;
    const rows = this.sql
      .exec(
        `SELECT * FROM ${table} ${filter} ${keyset} ORDER BY id ${order} LIMIT ?`,
        ...args,
        ...(cursor === undefined ? [] : [cursor]),
        limit + 1,
      )
      .toArray();
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return {
      items: items.map(map),
      nextCursor: more ? String(items[items.length - 1]!.id) : null,
      total,
    };
  }

  private update(table: string, id: number, patch: Record<string, unknown>): boolean {
    const sets: string[] = [];
    const args: SqlStorageValue[] = [];
    for (const [key, value] of Object.entries(patch)) {
      sets.push(`${COLUMNS[key]!} = ?`);
      args.push((value as SqlStorageValue) ?? null);
    }
    sets.push("updated_at = ?");
    args.push(new Date().toISOString());
    return (
      this.sql.exec(`UPDATE ${table} SET ${sets.join(", ")} WHERE id = ?`, ...args, id)
        .rowsWritten > 0
    );
  }

  private one(query: string, ...args: SqlStorageValue[]): Row | undefined {
    return this.sql.exec(query, ...args).toArray()[0];
  }

  private project(row: Row): Project {
    const counts: Record<string, number> = {};
    for (const c of this.sql.exec(
      "SELECT status, count(*) AS n FROM tasks WHERE project_id = ? GROUP BY status",
      row.id,
    ))
      counts[String(c.status)] = Number(c.n);
    return {
      id: Number(row.id),
      name: String(row.name),
      description: String(row.description),
      status: String(row.status),
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
      taskCounts: counts,
    };
  }

  private seed(): void {
    for (const p of SEED_PROJECTS) {
      const project = this.createProject(p);
      for (const t of p.tasks) {
        const created = this.createTask({ ...t, projectId: project.id });
        for (const body of t.comments ?? [])
          this.addComment(created.id, { author: t.assignee ?? "ana", body });
      }
    }
    this.sql.exec("INSERT INTO meta (key, value) VALUES ('seeded', ?)", new Date().toISOString());
  }
}
