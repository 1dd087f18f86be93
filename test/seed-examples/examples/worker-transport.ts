// Seed example: "WorkerTransport" (a transport with `{ get, set }` storage for the session state).
// Source: cloudflare/agents docs/agents/mcp-servers.md, "WorkerTransport" (the same options
// appear on https://developers.cloudflare.com/agents/model-context-protocol/mcp-handler-api/).
// Verbatim between the BEGIN/END markers; only import paths changed ("agents/mcp" ->
// "code-mode-mcp/mcp"). The snippet's `kv` (any store with typed get/put), the server and the
// legacy handler that serves the transport are scaffolding.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"; // scaffolding import
import { z } from "zod"; // scaffolding import
import { createLegacyMcpHandler } from "code-mode-mcp/mcp"; // scaffolding import
// BEGIN seed snippet (imports)
// Not in the seed. GAP: we export no `TransportState` (ours is `SessionRecord`); remove this
// directive when the alias exists.
// @ts-expect-error -- TransportState is not exported yet
import { WorkerTransport, type TransportState } from "code-mode-mcp/mcp";
// END seed snippet (imports)

/** Scaffolding: the store the snippet calls `kv` (typed get/put, like Durable Object storage.kv). */
const store = new Map<string, unknown>();
export const kv = {
  get: <T>(key: string) => store.get(key) as T | undefined,
  put: <T>(key: string, value: T) => void store.set(key, value),
};

/** Scaffolding: the server the transport carries. */
const server = new McpServer({ name: "transport-seed", version: "1.0.0" });
server.tool("echo", { text: z.string() }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));

// BEGIN seed snippet
const transport = new WorkerTransport({
  // Not in the seed. GAP: our WorkerTransport takes `(server, options)`, the seed's takes
  // `(options)` and is connected by the handler; remove this directive once it matches.
  // @ts-expect-error -- constructor signature differs
  sessionIdGenerator: () => crypto.randomUUID(),
  enableJsonResponse: false,
  storage: {
    get: () => kv.get<TransportState>("mcp_state"),
    set: (state: TransportState) => kv.put<TransportState>("mcp_state", state),
  },
});
// END seed snippet

/** Scaffolding: serve the server over that transport, once, at module scope. */
const handler = createLegacyMcpHandler(server, { transport });

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return handler(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
