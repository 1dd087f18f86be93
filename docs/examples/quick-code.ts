// README example "codeMcpServer" (short; the full one is docs/examples/code-server.ts).
// Kept in sync with README.md by test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import { codeMcpServer, createMcpHandler, WorkerLoaderExecutor } from "code-mode-mcp";

const handler = createMcpHandler(
  codeMcpServer({
    upstream: { url: "https://mcp.example.com/mcp", headers: { "x-api-key": env.UPSTREAM_TOKEN } },
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    secrets: [env.UPSTREAM_TOKEN],
  }),
);
export default {
  fetch: (request, bindings, ctx) => handler(request, bindings, ctx),
} satisfies ExportedHandler;
