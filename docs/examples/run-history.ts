// docs/runs.md example "In your own Worker". Kept in sync with docs/runs.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { env, waitUntil } from "cloudflare:workers";
import { openApiMcpServer, WorkerLoaderExecutor, type RunRecord } from "code-mode-mcp";

// Any store: a KV namespace here (the product uses sharded Durable Objects, src/app/runs/).
const saveRun = (record: RunRecord, caller: string) =>
  env.RUNS_KV.put(`run:${record.startedAt}:${record.id}`, JSON.stringify({ ...record, caller }));

export const api = openApiMcpServer({
  spec: env.SPEC,
  executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
  request: (req) => fetch(`https://api.example.com${req.path}`, { method: req.method }),
  // Called once per run, not awaited; waitUntil keeps the request alive for the write.
  onRun: (record, { authInfo }) => waitUntil(saveRun(record, authInfo?.clientId || "anonymous")),
});
