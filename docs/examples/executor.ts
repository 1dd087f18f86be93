// README example "The executor". Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { WorkerLoaderExecutor } from "code-mode-mcp";

declare const env: { LOADER: WorkerLoader };
declare const db: { projects(filter: unknown): Promise<{ id: string }[]> };

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
const outcome = await executor.execute({
  code: "async () => (await codemode.list_projects({ status: 'active' })).length",
  namespaces: { codemode: { list_projects: async ([input]) => db.projects(input) } },
});
console.log(outcome.status, outcome.result);
