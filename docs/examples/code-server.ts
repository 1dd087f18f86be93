// README example "codeMcpServer". Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import { codeMcpServer, createMcpHandler, WorkerLoaderExecutor } from "code-mode-mcp";

const code = codeMcpServer({
  // Or an SDK v2/v1 McpServer instance, or { server: () => new McpServer(…) } (a connection per run).
  upstream: {
    url: "https://mcp.example.com/mcp",
    headers: { authorization: `Bearer ${env.UPSTREAM_TOKEN}` },
  },
  executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
});

// Create the handler once, at module scope, and call it from the Worker's fetch export.
const handler = createMcpHandler(code);
export default {
  fetch: (request, bindings, ctx) => handler(request, bindings, ctx),
} satisfies ExportedHandler;
