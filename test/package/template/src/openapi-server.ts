// openApiMcpServer over a small inline spec: `search` reads the spec, `execute` calls the API
// through `request`, which here answers itself (a real Worker would fetch the API).
import { createMcpHandler, openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp";
import { env } from "cloudflare:workers";

const spec = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1.0.0" },
  paths: {
    "/pets": {
      get: {
        operationId: "listPets",
        summary: "List the pets",
        responses: {
          "200": {
            description: "The pets",
            content: {
              "application/json": {
                schema: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: { id: { type: "integer" }, name: { type: "string" } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

export const apiHandler = createMcpHandler(
  openApiMcpServer({
    spec: JSON.stringify(spec),
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    request: async (req) =>
      req.method === "GET" && req.path === "/pets"
        ? Response.json([
            { id: 1, name: "Rex" },
            { id: 2, name: "Tom" },
          ])
        : Response.json({ error: "not found" }, { status: 404 }),
  }),
  { route: "/api" },
);
