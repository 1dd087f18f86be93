/**
 * Test helpers: the real Worker (entry and configured variants) to connect clients to
 * (test/helpers/mcp-client.ts) in-process.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { createApp } from "../../../src/app/app";
import type { AppSettings } from "../../../src/app/config/config";
import { createWorker } from "../../../src/app/create-worker";
import { COMPACT_SPECS, TOOLS_LIST_TOKENS } from "../../../src/app/generated/specs";
import type { WorkerFetch } from "../../helpers/mcp-client";

export type { WorkerFetch } from "../../helpers/mcp-client";

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
  return (input, init) =>
    worker.fetch!(
      new Request(input, init) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...settings } as Cloudflare.Env,
      createExecutionContext(),
    ) as Promise<Response>;
}

/** JSON request helper for the demo API. */
export function json(method: string, body?: unknown): RequestInit {
  return {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  };
}
