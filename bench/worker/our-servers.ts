/**
 * Side A: this repository's servers, each behind its own stateless handler (module scope, so
 * the spec is loaded and the upstream connected once per isolate, as in a deployment).
 */
import {
  codeMcpServer,
  createMcpHandler,
  loadSpec,
  openApiMcpServer,
  SharedWorkerExecutor,
  WorkerLoaderExecutor,
  type Executor,
  type OpenApiSpec,
  type StatelessMcpHandler,
} from "../../src/index";
import specText from "./cloudflare-spec.js";
import githubText from "./github-spec.js";
import { mockApi } from "./mock-api";
import { v1ToolServer, v2ToolServer } from "./tool-fixtures";

/** Same timeout on both sides, long enough for the anchor's search under load. */
export const RUN_TIMEOUT_MS = 30_000;

const handlers = new Map<string, StatelessMcpHandler>();
let spec: OpenApiSpec | undefined;
let github: OpenApiSpec | undefined;

/** `/ours/…` runs on a new isolate per run; `/shared/…` on the shared worker (bench/driver/cost.mjs). */
function executor(env: Cloudflare.Env, path: string): Executor {
  const limits = { timeoutMs: RUN_TIMEOUT_MS };
  return path.startsWith("/shared/")
    ? new SharedWorkerExecutor({ loader: env.LOADER, limits, name: "bench" })
    : new WorkerLoaderExecutor({ loader: env.LOADER, limits });
}

/**
 * The handler for `/ours/openapi`, `/ours/code/<n>` or their `/shared/…` twins (the
 * shared-worker executor), or undefined for another path.
 * @param path - the request's pathname
 * @param env - bindings (the LOADER)
 */
export function ourHandler(path: string, env: Cloudflare.Env): StatelessMcpHandler | undefined {
  let handler = handlers.get(path);
  if (handler) return handler;
  if (
    path === "/ours/openapi" ||
    path === "/ours/openapi-unvalidated" ||
    path === "/shared/openapi"
  ) {
    // The second route differs only in skipping request validation, the one thing the anchor
    // does not do per request: P4 reports its per-request cost beside the default's.
    spec ??= loadSpec(specText);
    handler = createMcpHandler(
      openApiMcpServer({
        spec,
        validateRequests: path !== "/ours/openapi-unvalidated",
        executor: executor(env, path),
        request: (request) => {
          const reply = mockApi(request);
          return { status: reply.status, body: reply.body };
        },
      }),
      { route: path },
    );
  } else if (path === "/ours/openapi-github") {
    // The GitHub spec (search rows by spec, driver/search-specs.mjs), loaded on first use.
    github ??= loadSpec(githubText);
    handler = createMcpHandler(
      openApiMcpServer({
        spec: github,
        executor: executor(env, path),
        request: (request) => ({ status: 200, body: { path: request.path } }),
      }),
      { route: path },
    );
  } else {
    const [, v1, n] = /^\/(?:ours|shared)\/code(-v1)?\/(\d+)$/.exec(path) ?? [];
    if (n === undefined) return undefined;
    // `/ours/code-v1/<n>`: the same fixture as an SDK v1 server, the very upstream the anchor
    // wraps, so P7 can tell our own per-call cost from the SDK v2 server's.
    const upstream = v1 ? v1ToolServer(Number(n)) : v2ToolServer(Number(n));
    handler = createMcpHandler(codeMcpServer({ upstream, executor: executor(env, path) }), {
      route: path,
    });
  }
  handlers.set(path, handler);
  return handler;
}
