/**
 * The upstream MCP server the seed's `code` program talks to: `list_projects({ status })` and
 * `list_tasks({ projectId })`, each returning a JSON array (text content, no output schema), the
 * way the seed's program reads them (`for (const project of projects)`). Served over HTTP by
 * createMcpHandler, in process.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

/** The upstream's projects. */
export const PROJECTS = [
  { id: "p1", name: "Website", status: "active" },
  { id: "p2", name: "Archive", status: "archived" },
  { id: "p3", name: "Mobile", status: "active" },
];

/** The upstream's tasks. */
export const TASKS = [
  { id: "t1", projectId: "p1", title: "Fix login", status: "blocked" },
  { id: "t2", projectId: "p1", title: "Ship blog", status: "open" },
  { id: "t3", projectId: "p2", title: "Old thing", status: "blocked" },
  { id: "t4", projectId: "p3", title: "Push notifications", status: "blocked" },
];

function projectsServer() {
  const server = new McpServer({ name: "projects", version: "1.0.0" });
  server.registerTool(
    "list_projects",
    {
      description: "List projects, optionally by status.",
      inputSchema: z.object({ status: z.enum(["active", "archived"]).optional() }),
    },
    async ({ status }) => ({
      content: [
        {
          type: "text",
          text: JSON.stringify(PROJECTS.filter((p) => status === undefined || p.status === status)),
        },
      ],
    }),
  );
  server.registerTool(
    "list_tasks",
    {
      description: "List the tasks of one project.",
      inputSchema: z.object({ projectId: z.string() }),
    },
    async ({ projectId }) => ({
      content: [
        { type: "text", text: JSON.stringify(TASKS.filter((t) => t.projectId === projectId)) },
      ],
    }),
  );
  return server;
}

const upstream = createMcpHandler(projectsServer);

/** The `upstream` option of codeMcpServer: the projects server over HTTP, no network. */
export const projectsUpstream = {
  url: "http://projects.local/mcp",
  fetch: (input: string | URL | Request, init?: RequestInit) =>
    upstream.fetch(new Request(input, init)),
};
