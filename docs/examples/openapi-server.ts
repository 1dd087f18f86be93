// README example "openApiMcpServer". Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import { createMcpHandler, openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp";

// env: the Worker's bindings (LOADER, the API_TOKEN and STATE_KEY secrets, SPEC: the spec as JSON).
const api = openApiMcpServer({
  spec: env.SPEC, // a compact spec from `npm run build:specs`, or any OpenAPI 2.0/3.0/3.1 JSON
  executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
  // Credentials live here, never in the sandbox:
  request: (req) =>
    fetch(`https://api.example.com${req.path}`, {
      method: req.method,
      headers: { authorization: `Bearer ${env.API_TOKEN}`, "content-type": "application/json" },
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
    }),
  secrets: [env.API_TOKEN], // ≥ 8 chars; kept out of the sandbox (every channel) and of results
  approval: true, // ask a person before every non-GET request
});

// Create the handler once, at module scope, and call it from the Worker's fetch export.
const handler = createMcpHandler(api, { requestState: { key: env.STATE_KEY } });
export default {
  fetch: (request, bindings, ctx) => handler(request, bindings, ctx),
} satisfies ExportedHandler;
