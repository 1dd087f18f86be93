/**
 * Helpers for the agent tests: real SDK v1 clients talking to the test Worker in-process.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { exports } from "cloudflare:workers";
import { type FetchLike, withoutStandaloneStream } from "../helpers/clients/mcp-client";

export { type FetchLike, withoutStandaloneStream } from "../helpers/clients/mcp-client";
export { text } from "../helpers/clients/tool-result";

/** Calls the Worker with a real Request. */
export const workerFetch: FetchLike = (url, init) =>
  (exports as unknown as { default: { fetch(request: Request): Promise<Response> } }).default.fetch(
    new Request(url, init),
  );

/** {@link workerFetch} without the standalone GET stream. */
export const noStandaloneStream = withoutStandaloneStream(workerFetch);

/** Options of {@link connectClient}. */
export interface ConnectOptions {
  fetch?: FetchLike;
  capabilities?: ConstructorParameters<typeof Client>[1] extends infer O
    ? O extends { capabilities?: infer C }
      ? C
      : never
    : never;
  sessionId?: string;
}

/**
 * Connects a real SDK v1 client to `path` of the test Worker.
 *
 * @param path - e.g. `/mcp`
 * @param options - fetch override, declared capabilities
 * @returns the client and its transport
 */
export async function connectClient(path: string, options: ConnectOptions = {}) {
  const client = new Client(
    { name: "agent-test-client", version: "1.0.0" },
    // Ajv (the default) is slow to start inside workerd; the SDK's cfworker validator is not.
    {
      capabilities: options.capabilities ?? {},
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
    fetch: options.fetch ?? noStandaloneStream,
    reconnectionOptions: {
      initialReconnectionDelay: 2,
      maxReconnectionDelay: 20,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 5,
    },
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
  });
  await client.connect(transport);
  return { client, transport };
}

/** A JSON-RPC POST to the test Worker. */
export function rpc(path: string, body: unknown, headers: Record<string, string> = {}) {
  return workerFetch(`http://localhost${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The `initialize` request of a 2025-11-25 client. */
export function initializeBody(capabilities: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "raw", version: "1.0.0" },
    },
  };
}
