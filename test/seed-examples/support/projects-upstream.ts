/**
 * The upstream MCP server the seed's `code` program talks to: `list_projects({ status })` and
 * `list_tasks({ projectId })`, each returning a JSON array (text content, no output schema), the
 * way the seed's program reads them (`for (const project of projects)`). Served over HTTP by
 * createMcpHandler, in process.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

// The contract example's data, shared with the code-mode tests.
import { PROJECTS, TASKS } from "../../workers/codemode/fixtures";

export { PROJECTS, TASKS };

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
