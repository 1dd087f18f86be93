/**
 * Test helpers: the real Worker (entry and configured variants) and SDK v2 clients talking HTTP
 * to it in-process.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { createApp } from "../../../src/app/app";
import type { AppSettings } from "../../../src/app/config";
import { createWorker } from "../../../src/app/create-worker";
import { COMPACT_SPECS } from "../../../src/openapi/generated/specs";

/** A fetch function into a Worker. */
export type WorkerFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

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
  const worker = createWorker(createApp({ specs: { ...COMPACT_SPECS, ...specs } }));
  return (input, init) =>
    worker.fetch!(
      new Request(input, init) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...settings } as Cloudflare.Env,
      createExecutionContext(),
    ) as Promise<Response>;
}

/**
 * Connects an SDK v2 client to an MCP route of a Worker.
 * @param fetch - the Worker
 * @param route - `/mcp` or `/mcp/code`
 * @param headers - extra request headers (an API key)
 */
export async function connect(
  fetch: WorkerFetch,
  route = "/mcp",
  headers?: Record<string, string>,
): Promise<Client> {
  const client = new Client(
    { name: "app-test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://localhost${route}`), {
      fetch,
      ...(headers ? { requestInit: { headers } } : {}),
    }),
  );
  return client;
}

/** The first text block of a tool result. */
export function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
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
