// docs/skills.md example "codeMcpServer with skills". Kept in sync with docs/skills.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import {
  codeMcpServer,
  createMcpHandler,
  MemorySkillStore,
  WorkerLoaderExecutor,
} from "code-mode-mcp";

const code = codeMcpServer({
  upstream: {
    url: "https://mcp.example.com/mcp",
    headers: { authorization: `Bearer ${env.UPSTREAM_TOKEN}` },
  },
  executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
  skills: {
    // This isolate's memory; inside a Durable Object: new SqlSkillStore(ctx.storage.sql).
    store: new MemorySkillStore(),
    // One set per OAuth client here; with no verified caller, no skills.
    owner: (authInfo) => authInfo?.clientId,
  },
});

const handler = createMcpHandler(code);
export default {
  fetch: (request, bindings, ctx) => handler(request, bindings, ctx),
} satisfies ExportedHandler;
