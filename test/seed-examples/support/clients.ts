/**
 * Real MCP clients (SDK v1 and v2) talking HTTP to a seed example's own `fetch`, in process:
 * every request is a real Request handed to the example Worker's export, with the test pool's
 * bindings and a real execution context.
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import type { Client } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { connect, type FetchLike, withoutStandaloneStream } from "../../helpers/clients/mcp-client";

export { type FetchLike, withoutStandaloneStream } from "../../helpers/clients/mcp-client";
export { text } from "../../helpers/clients/tool-result";

/** Anything with a Worker-style fetch (an example's default export). */
export interface WorkerLike {
  fetch?: (request: never, env: never, ctx: never) => Response | Promise<Response>;
}

/**
 * A fetch that calls an example Worker's `fetch(request, env, ctx)` with a real Request.
 * @param worker - the example's default export (an object with `fetch`, or a callable handler)
 * @param bindings - the env it sees (default: the test Worker's bindings)
 */
export function viaWorker(
  worker:
    | WorkerLike
    | ((request: Request, env: unknown, ctx: ExecutionContext) => Promise<Response>),
  bindings: unknown = env,
): FetchLike {
  return async (url, init) => {
    const ctx = createExecutionContext();
    const request = new Request(url, init);
    const response =
      typeof worker === "function"
        ? await worker(request, bindings, ctx)
        : await (
            worker.fetch as (r: Request, e: unknown, c: ExecutionContext) => Promise<Response>
          )(request, bindings, ctx);
    // Lets work the example left in ctx.waitUntil finish without holding the response back.
    void waitOnExecutionContext(ctx);
    return response;
  };
}

/** Adds a bearer token to every request. */
export function withBearer(inner: FetchLike, token: string): FetchLike {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return inner(url, { ...init, headers });
  };
}

/** Client capabilities of SDK v1 (e.g. elicitation). */
export type V1Capabilities = NonNullable<
  NonNullable<ConstructorParameters<typeof V1Client>[1]>["capabilities"]
>;

/**
 * Connects an SDK v1 client (2025-era, sessionful) to `url` through `fetch`.
 * @returns the client and its transport
 */
export async function connectV1(url: string, fetch: FetchLike, capabilities: V1Capabilities = {}) {
  const client = new V1Client(
    { name: "seed-example-test", version: "1.0.0" },
    // Ajv (the default) is slow to start inside workerd; the SDK's cfworker validator is not.
    { capabilities, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new V1Transport(new URL(url), {
    fetch: withoutStandaloneStream(fetch),
    reconnectionOptions: {
      initialReconnectionDelay: 2,
      maxReconnectionDelay: 20,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3,
    },
  });
  await client.connect(transport);
  return { client, transport };
}

/** Connects an SDK v2 client (protocol era negotiated) to `url` through `fetch`. */
export async function connectV2(url: string, fetch: FetchLike): Promise<Client> {
  return connect(fetch, url, { name: "seed-example-test" });
}
