// README example "The executor". Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env } from "cloudflare:workers";
import { WorkerLoaderExecutor } from "code-mode-mcp";

// Your data access (a stand-in here).
const db = { projects: async (_filter: unknown) => [{ id: "p1" }, { id: "p2" }] };

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

export default {
  async fetch() {
    const outcome = await executor.execute({
      code: "async () => (await codemode.list_projects({ status: 'active' })).length",
      namespaces: { codemode: { list_projects: async ([input]) => db.projects(input) } },
    });
    return Response.json({ status: outcome.status, result: outcome.result }); // "ok", 2
  },
} satisfies ExportedHandler;
