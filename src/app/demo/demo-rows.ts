/**
 * The demo API's resource shapes (specs/demo-api.yaml) and their mapping from SQLite rows.
 */

/** A SQLite row. */
export type Row = Record<string, SqlStorageValue>;

/** A project as the API returns it. */
export interface Project {
  id: number;
  name: string;
  description: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  taskCounts: Record<string, number>;
}

/** A task as the API returns it. */
export interface Task {
  id: number;
  projectId: number;
  title: string;
  description: string;
  status: string;
  priority: string;
  assignee: string | null;
  dueDate: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A comment as the API returns it. */
export interface Comment {
  id: number;
  taskId: number;
  author: string;
  body: string;
  createdAt: string;
}

/** One page of a list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total: number;
}

/**
 * Maps a `tasks` row to the API shape.
 * @param row - the row
 */
export function taskFromRow(row: Row): Task {
  return {
    id: Number(row.id),
    projectId: Number(row.project_id),
    title: String(row.title),
    description: String(row.description),
    status: String(row.status),
    priority: String(row.priority),
    assignee: row.assignee === null ? null : String(row.assignee),
    dueDate: row.due_date === null ? null : String(row.due_date),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/**
 * Maps a `comments` row to the API shape.
 * @param row - the row
 */
export function commentFromRow(row: Row): Comment {
  return {
    id: Number(row.id),
    taskId: Number(row.task_id),
    author: String(row.author),
    body: String(row.body),
    createdAt: String(row.created_at),
  };
}
