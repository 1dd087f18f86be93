// `/mcp`: the API in src/openapi.json as two tools. `search` runs the model's code against the
// spec; `execute` runs it with `codemode.request()`, which reaches this file's `request` callback
// and nothing else (the sandbox has no network). Here the callback answers the sample itself;
// `code-mode-mcp init --spec your-openapi.yaml` writes one that calls your API with a token.
import { createMcpHandler, openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp";
import { env } from "cloudflare:workers";
import spec from "./openapi.json";
import operatorSkills from "./skills.json";
import { TASKS } from "./sample-data";

/** The sample API: what a real API would answer for the two operations of the spec. */
function sampleApi(method: string, path: string, query: Record<string, unknown>): Response {
  if (method !== "GET") return Response.json({ error: "read-only sample" }, { status: 405 });
  if (path === "/tasks")
    return Response.json(
      TASKS.filter((t) => query.status === undefined || t.status === query.status),
    );
  const task = TASKS.find((t) => path === `/tasks/${t.id}`);
  return task ? Response.json(task) : Response.json({ error: "no such task" }, { status: 404 });
}

/** The MCP endpoint `/mcp` (created once per isolate; each request gets a fresh server). */
export const apiHandler = createMcpHandler(
  openApiMcpServer({
    spec,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    request: async ({ method, path, query }) => sampleApi(method, path, query ?? {}),
    // The operator's read-only skills: skills/ bundled by `npm run skills` (skills/README.md).
    skills: { readOnly: operatorSkills },
  }),
  { route: "/mcp" },
);
