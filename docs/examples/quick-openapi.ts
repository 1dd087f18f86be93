// README example "openApiMcpServer" (short; the full one with approvals is docs/examples/openapi-server.ts).
// Kept in sync with README.md by test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import {
  createMcpHandler,
  namingFetch,
  openApiMcpServer,
  WorkerLoaderExecutor,
} from "code-mode-mcp";
import spec from "./openapi.json"; // any OpenAPI 2.0/3.0/3.1 document

const api = "https://api.example.com";
const send = namingFetch({ what: "the API" }); // a failed connection: NetworkError naming the host
const handler = createMcpHandler(
  openApiMcpServer({
    spec,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    // The credential lives in the host's callback, never in the sandbox.
    request: ({ method, path, query, body }) =>
      send(`${api}${path}?${new URLSearchParams(query as Record<string, string>)}`, {
        method,
        headers: { authorization: `Bearer ${env.API_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    secrets: [env.API_TOKEN], // also redacted from anything the API echoes back
  }),
);
export default {
  fetch: (request, bindings, ctx) => handler(request, bindings, ctx),
} satisfies ExportedHandler;
