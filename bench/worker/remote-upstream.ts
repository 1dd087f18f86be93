/**
 * The `code` tool over a remote upstream (P8): the 5-tool fixture served over Streamable HTTP
 * inside this Worker, reached through a fetch that waits `delay` ms before every request (an
 * injected network round trip) and counts the requests, so the driver can put the code run's
 * time beside the upstream's own round trips and count what each run sent.
 *
 * Routes: `/ours/code-remote/<delay>` (one code server per isolate: warm caches, as deployed),
 * `/ours/code-remote-cold/<delay>` (a new code server for every HTTP request: nothing cached,
 * as in a fresh isolate), `/upstream/<delay>` (the upstream itself behind the same delay, for a
 * direct call: its own round trip), and
 * `/upstream-requests` (the count so far).
 */
import {
  codeMcpServer,
  createMcpHandler,
  WorkerLoaderExecutor,
  type StatelessMcpHandler,
} from "../../src/index";
import { RUN_TIMEOUT_MS } from "./our-servers";
import { v2ToolServer } from "./tool-fixtures";

/** Upstream requests the code servers sent (direct calls to `/upstream/<delay>` not counted). */
let sent = 0;
const upstreams = new Map<number, StatelessMcpHandler>();
const warm = new Map<number, StatelessMcpHandler>();

function upstream(delay: number): StatelessMcpHandler {
  let handler = upstreams.get(delay);
  if (!handler) {
    handler = createMcpHandler(() => v2ToolServer(5), { route: `/upstream/${delay}` });
    upstreams.set(delay, handler);
  }
  return handler;
}

/** What the code server uses to reach the upstream: one delayed, counted round trip each. */
function delayedFetch(delay: number) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    sent++;
    const request = new Request(input, init);
    await new Promise((resolve) => setTimeout(resolve, delay));
    return upstream(delay).fetch(request);
  };
}

function codeServer(delay: number, env: Cloudflare.Env, route: string): StatelessMcpHandler {
  return createMcpHandler(
    codeMcpServer({
      upstream: { url: `http://upstream.bench/upstream/${delay}`, fetch: delayedFetch(delay) },
      executor: new WorkerLoaderExecutor({
        loader: env.LOADER,
        limits: { timeoutMs: RUN_TIMEOUT_MS },
      }),
    }),
    { route },
  );
}

/**
 * Serves the routes above, or returns undefined for another path.
 * @param request - the HTTP request
 * @param env - bindings (the LOADER)
 * @param ctx - the execution context
 */
export async function remoteUpstreamFetch(
  request: Request,
  env: Cloudflare.Env,
  ctx: ExecutionContext,
): Promise<Response | undefined> {
  const path = new URL(request.url).pathname;
  if (path === "/upstream-requests") return Response.json({ sent });
  const [, kind, d] =
    /^\/(ours\/code-remote|ours\/code-remote-cold|upstream)\/(\d+)$/.exec(path) ?? [];
  if (!kind) return undefined;
  const delay = Number(d);
  if (kind === "upstream") {
    // The same injected round trip as the code server's requests, uncounted.
    await new Promise((resolve) => setTimeout(resolve, delay));
    return upstream(delay).fetch(request);
  }
  if (kind === "ours/code-remote-cold") return codeServer(delay, env, path)(request, env, ctx);
  let handler = warm.get(delay);
  if (!handler) {
    handler = codeServer(delay, env, path);
    warm.set(delay, handler);
  }
  return handler(request, env, ctx);
}
