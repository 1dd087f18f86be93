// `/mcp/code`: an MCP server's tools as one `code` tool. Its description declares every tool
// in TypeScript; one program calls many tools and returns only the answer. The upstream here is
// a small MCP server in this Worker; `code-mode-mcp init --upstream <url>` wraps a remote one.
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { codeMcpServer, createMcpHandler, WorkerLoaderExecutor } from "code-mode-mcp";
import { z } from "zod";
import { TASKS } from "./sample-data";
import operatorSkills from "./skills.json";

const task = z.object({
  id: z.number(),
  title: z.string(),
  status: z.enum(["open", "blocked", "done"]),
  owner: z.string(),
});

const tasks = new McpServer({ name: "tasks", version: "1.0.0" });
tasks.registerTool(
  "list_tasks",
  {
    description: "List the tasks, optionally those of one owner",
    inputSchema: z.object({ owner: z.string().optional() }),
    outputSchema: z.object({ tasks: z.array(task) }),
  },
  async ({ owner }) => {
    const result = { tasks: TASKS.filter((t) => owner === undefined || t.owner === owner) };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  },
);

/** The MCP endpoint `/mcp/code`. */
export const codeHandler = createMcpHandler(
  codeMcpServer({
    upstream: tasks,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    // The operator's read-only skills: skills/ bundled by `npm run skills` (skills/README.md).
    skills: { readOnly: operatorSkills },
  }),
  { route: "/mcp/code" },
);
