/**
 * The contract's example upstream: projects and tasks, served by an SDK v2 server, an SDK v1
 * server, or over HTTP, so every upstream kind runs the same program.
 */
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const PROJECTS = [
  { id: "p1", name: "Website", status: "active" },
  { id: "p2", name: "Archive", status: "archived" },
  { id: "p3", name: "Mobile", status: "active" },
];
export const TASKS = [
  { id: "t1", projectId: "p1", title: "Fix login", status: "blocked" },
  { id: "t2", projectId: "p1", title: "Ship blog", status: "open" },
  { id: "t3", projectId: "p2", title: "Old thing", status: "blocked" },
  { id: "t4", projectId: "p3", title: "Push notifications", status: "blocked" },
];

/** The contract's example program, verbatim in spirit: blocked tasks of active projects. */
export const BLOCKED_TASKS_PROGRAM = `async () => {
  const ps = await codemode.list_projects({ status: "active" });
  const result = [];
  for (const p of ps.projects) {
    const { tasks } = await codemode.list_tasks({ projectId: p.id });
    result.push(...tasks.filter((t) => t.status === "blocked").map((t) => ({ project: p.name, task: t.title })));
  }
  return result;
}`;

export const BLOCKED_TASKS = [
  { project: "Website", task: "Fix login" },
  { project: "Mobile", task: "Push notifications" },
];

const projectsOutput = {
  projects: z.array(
    z.object({ id: z.string(), name: z.string(), status: z.enum(["active", "archived"]) }),
  ),
};
const tasksOutput = {
  tasks: z.array(
    z.object({ id: z.string(), projectId: z.string(), title: z.string(), status: z.string() }),
  ),
};

/** SDK v2 server with output schemas (structured content). */
export function v2Upstream(): McpServer {
  // Declares tools.listChanged so clients (code mode included) subscribe to list changes.
  const server = new McpServer(
    { name: "projects", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.registerTool(
    "list_projects",
    {
      description: "List projects, optionally by status.",
      inputSchema: z.object({ status: z.enum(["active", "archived"]).optional() }),
      outputSchema: z.object(projectsOutput),
    },
    async ({ status }) => {
      const projects = PROJECTS.filter((p) => !status || p.status === status);
      return {
        content: [{ type: "text", text: JSON.stringify({ projects }) }],
        structuredContent: { projects },
      };
    },
  );
  server.registerTool(
    "list_tasks",
    {
      description: "List the tasks of one project.",
      inputSchema: z.object({ projectId: z.string() }),
      outputSchema: z.object(tasksOutput),
    },
    async ({ projectId }) => {
      const tasks = TASKS.filter((t) => t.projectId === projectId);
      return {
        content: [{ type: "text", text: JSON.stringify({ tasks }) }],
        structuredContent: { tasks },
      };
    },
  );
  server.registerTool("fail", { description: "Always fails." }, async () => ({
    isError: true,
    content: [{ type: "text", text: "database unavailable" }],
  }));
  return server;
}

/** SDK v1 server with JSON text results (no output schemas). */
export function v1Upstream(): V1McpServer {
  const server = new V1McpServer({ name: "projects-v1", version: "1.0.0" });
  server.registerTool(
    "list_projects",
    {
      description: "List projects.",
      inputSchema: { status: z.enum(["active", "archived"]).optional() },
    },
    async ({ status }) => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({
            projects: PROJECTS.filter((p) => !status || p.status === status),
          }),
        },
      ],
    }),
  );
  server.registerTool(
    "list_tasks",
    { description: "List tasks.", inputSchema: { projectId: z.string() } },
    async ({ projectId }) => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({ tasks: TASKS.filter((t) => t.projectId === projectId) }),
        },
      ],
    }),
  );
  return server;
}
