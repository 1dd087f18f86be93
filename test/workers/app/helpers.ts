/**
 * Test helpers: the real Worker (entry and configured variants) to connect clients to
 * (test/helpers/clients/mcp-client.ts) in-process.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterAll } from "vitest";
import { createApp } from "../../../src/app/app";
import type { AppSettings } from "../../../src/app/config/config";
import { createWorker } from "../../../src/app/create-worker";
import { COMPACT_SPECS, TOOLS_LIST_TOKENS } from "../../../src/app/generated/specs";
import type { WorkerFetch } from "../../helpers/clients/mcp-client";
import { rpcBody } from "../mcp/fixtures";

export type { WorkerFetch } from "../../helpers/clients/mcp-client";

/** The deployed entry (src/worker.ts) with wrangler.jsonc's configuration. */
export const entry: WorkerFetch = (input, init) =>
  (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default.fetch(
    new Request(input, init),
  );

/**
 * The same Worker with extra settings (vars/secrets) and optionally extra specs.
 * @param settings - settings layered over wrangler.jsonc's vars
 * @param specs - extra compiled specs by name
 */
export function configured(settings: AppSettings, specs: Record<string, string> = {}): WorkerFetch {
  const worker = createWorker(
    createApp({ specs: { ...COMPACT_SPECS, ...specs }, toolsListTokens: TOOLS_LIST_TOKENS }),
  );
  return (input, init) => {
    const ctx = createExecutionContext();
    contexts.push(ctx);
    return worker.fetch!(
      new Request(input, init) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...settings } as Cloudflare.Env,
      ctx,
    ) as Promise<Response>;
  };
}

// What a request left to do after its answer (its run's record, written once the isolate is
// quiet: src/app/runs/after-response.ts) is waited for before the test file's environment
// closes; a write still pending then failed the whole run with an EnvironmentTeardownError.
const contexts: ExecutionContext[] = [];
afterAll(async () => {
  await Promise.all(contexts.splice(0).map((ctx) => waitOnExecutionContext(ctx)));
});

/** JSON request helper for the demo API. */
export function json(method: string, body?: unknown): RequestInit {
  return {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  };
}

/** A plain `tools/list` request's init for `/mcp` (a 2025 client's, no session). */
export const TOOLS_LIST = {
  method: "POST",
  headers: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
} satisfies RequestInit;

/** Sends one JSON-RPC message (without its `jsonrpc` member) to `/mcp`. */
export type Poster = (message: Record<string, unknown>) => Promise<Response>;

/**
 * Raw 2025-11-25 JSON-RPC POSTs to `/mcp` as the given bearer token (or none): the tasks lane as
 * a client reaches it without an SDK, so a test can send what an SDK would not (a foreign task
 * id, a stale answer).
 * @param worker - the Worker to send to
 * @param token - the bearer token (an OAuth access token or an API key), if any
 */
export function poster(worker: WorkerFetch, token?: string): Poster {
  return (message) =>
    worker("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });
}

/**
 * Calls `execute` with `code` as a task (60 s ttl) and returns the task as created.
 * @param post - who calls (see {@link poster})
 * @param code - the program to run
 */
export async function createTask(
  post: Poster,
  code: string,
): Promise<{ taskId: string; ttl: number }> {
  const created = (await rpcBody(
    await post({
      id: 1,
      method: "tools/call",
      params: { name: "execute", arguments: { code }, task: { ttl: 60_000 } },
    }),
  )) as { result: { task: { taskId: string; ttl: number } } };
  return created.result.task;
}
