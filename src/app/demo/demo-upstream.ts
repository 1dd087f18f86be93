/**
 * The demo upstream MCP server: the demo API's projects, tasks and comments as MCP tools with
 * input and output schemas, so `/mcp/code` has typed declarations to show. Each tool calls the
 * demo API in-process (the `DemoStore` Durable Object), so it sees the same data as `/mcp`.
 *
 * Does not do: authorization. Like the demo API, it is a shared sandbox data set.
 */
import { McpServer, type CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { demoApiFetch } from "./demo-api-fetch";
import type { DemoStore } from "./demo-store";

const projectStatus = z.enum(["active", "paused", "archived"]);
const taskStatus = z.enum(["todo", "in_progress", "blocked", "done"]);
const priority = z.enum(["low", "medium", "high"]);
const id = z.number().int().min(1);
const paging = {
  limit: z.number().int().min(1).max(100).optional().describe("Page size (default 20)"),
  cursor: z.string().optional().describe("nextCursor of the previous page"),
};

const project = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  status: projectStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
  taskCounts: z.record(z.string(), z.number()).describe("Number of tasks per status"),
});
const task = z.object({
  id: z.number(),
  projectId: z.number(),
  title: z.string(),
  description: z.string(),
  status: taskStatus,
  priority,
  assignee: z.string().nullable(),
  dueDate: z.string().nullable().describe("YYYY-MM-DD"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const comment = z.object({
  id: z.number(),
  taskId: z.number(),
  author: z.string(),
  body: z.string(),
  createdAt: z.string(),
});
const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end"),
    total: z.number().describe("Matching items across all pages"),
  });
const taskFields = {
  title: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  status: taskStatus.optional(),
  priority: priority.optional(),
  assignee: z.string().max(100).nullable().optional(),
  dueDate: z.string().nullable().optional().describe("YYYY-MM-DD"),
};
const deletedOutput = z.object({ deleted: z.literal(true), id: z.number() });

/** One tool: name, description, schemas and how its input becomes an API request. */
interface DemoTool {
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  request: (input: Record<string, unknown>) => { method: string; path: string; body?: unknown };
}

const TOOLS: Record<string, DemoTool> = {
  list_projects: {
    description: "List projects (newest first), optionally by status or a name substring `q`.",
    input: z.object({ status: projectStatus.optional(), q: z.string().optional(), ...paging }),
    output: page(project),
    request: (input) => ({ method: "GET", path: `/projects${query(input)}` }),
  },
  get_project: {
    description: "Get one project with its task counts by status.",
    input: z.object({ id }),
    output: project,
    request: (input) => ({ method: "GET", path: `/projects/${String(input.id)}` }),
  },
  create_project: {
    description: "Create a project.",
    input: z.object({
      name: z.string().min(1).max(200),
      description: z.string().max(2000).optional(),
      status: projectStatus.optional(),
    }),
    output: project,
    request: (input) => ({ method: "POST", path: "/projects", body: input }),
  },
  update_project: {
    description: "Change a project's name, description or status.",
    input: z.object({
      id,
      name: z.string().min(1).max(200).optional(),
      description: z.string().max(2000).optional(),
      status: projectStatus.optional(),
    }),
    output: project,
    request: ({ id: projectId, ...patch }) => ({
      method: "PATCH",
      path: `/projects/${String(projectId)}`,
      body: patch,
    }),
  },
  delete_project: {
    description: "Delete a project with its tasks and their comments.",
    input: z.object({ id }),
    output: deletedOutput,
    request: (input) => ({ method: "DELETE", path: `/projects/${String(input.id)}` }),
  },
  list_tasks: {
    description:
      "List tasks (newest first), filtered by projectId, status, assignee, priority or a title substring `q`.",
    input: z.object({
      projectId: id.optional(),
      status: taskStatus.optional(),
      assignee: z.string().optional(),
      priority: priority.optional(),
      q: z.string().optional(),
      ...paging,
    }),
    output: page(task),
    request: (input) => ({ method: "GET", path: `/tasks${query(input)}` }),
  },
  get_task: {
    description: "Get one task.",
    input: z.object({ id }),
    output: task,
    request: (input) => ({ method: "GET", path: `/tasks/${String(input.id)}` }),
  },
  create_task: {
    description: "Create a task in a project (status defaults to todo, priority to medium).",
    input: z.object({ projectId: id, ...taskFields }),
    output: task,
    request: (input) => ({ method: "POST", path: "/tasks", body: input }),
  },
  update_task: {
    description: "Change a task's title, description, status, priority, assignee or due date.",
    input: z.object({ id, ...taskFields, title: taskFields.title.optional() }),
    output: task,
    request: ({ id: taskId, ...patch }) => ({
      method: "PATCH",
      path: `/tasks/${String(taskId)}`,
      body: patch,
    }),
  },
  delete_task: {
    description: "Delete a task and its comments.",
    input: z.object({ id }),
    output: deletedOutput,
    request: (input) => ({ method: "DELETE", path: `/tasks/${String(input.id)}` }),
  },
  list_comments: {
    description: "List a task's comments, oldest first.",
    input: z.object({ taskId: id, ...paging }),
    output: page(comment),
    request: ({ taskId, ...rest }) => ({
      method: "GET",
      path: `/tasks/${String(taskId)}/comments${query(rest)}`,
    }),
  },
  add_comment: {
    description: "Add a comment to a task.",
    input: z.object({
      taskId: id,
      author: z.string().min(1).max(100),
      body: z.string().min(1).max(4000),
    }),
    output: comment,
    request: ({ taskId, ...body }) => ({
      method: "POST",
      path: `/tasks/${String(taskId)}/comments`,
      body,
    }),
  },
};

/** Names of the demo upstream's tools. */
export const DEMO_TOOL_NAMES: readonly string[] = Object.keys(TOOLS);

/**
 * Builds the demo upstream server (SDK v2), one per connection.
 * @param store - the `DEMO_STORE` binding
 */
export function demoUpstreamServer(store: DurableObjectNamespace<DemoStore>): McpServer {
  const server = new McpServer(
    { name: "demo-projects", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  for (const [name, tool] of Object.entries(TOOLS)) {
    server.registerTool(
      name,
      { description: tool.description, inputSchema: tool.input, outputSchema: tool.output },
      async (input): Promise<CallToolResult> => {
        const { method, path, body } = tool.request(input as Record<string, unknown>);
        const response = await demoApiFetch(store, path, {
          method,
          ...(body === undefined
            ? {}
            : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
        });
        const data: unknown =
          response.status === 204 ? { deleted: true, id: input.id } : await response.json();
        if (!response.ok) {
          const error = (data as { error?: { message?: string } }).error;
          return {
            isError: true,
            content: [{ type: "text", text: error?.message ?? `HTTP ${response.status}` }],
          };
        }
        return {
          content: [{ type: "text", text: JSON.stringify(data) }],
          structuredContent: data as Record<string, unknown>,
        };
      },
    );
  }
  return server;
}

function query(input: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input))
    if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
