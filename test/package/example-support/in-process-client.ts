// A real MCP client (SDK v2) for an example's fetch handler, in-process in workerd: the docs'
// examples (examples/) and the library's pasted ones (readme-examples/) are each served and
// asked the same way. Copied into the project `init` wrote, beside both (init-project.mjs).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";

/** What an example exports as its default: a Worker's fetch handler. */
export type Handler = {
  fetch(request: Request, env: Cloudflare.Env, ctx: ExecutionContext): unknown;
};

/**
 * A real MCP client whose requests go to `handler` in-process (no socket).
 * @param handler - the example's fetch handler
 * @param name - the client's name (which suite asks)
 * @param path - where the example serves MCP
 */
export async function connect(handler: Handler, name: string, path = "/mcp"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: async (url, init) => {
        // No standalone GET stream: nothing stays open after a test.
        if ((init?.method ?? "GET") === "GET") return new Response(null, { status: 405 });
        const ctx = createExecutionContext();
        const response = (await handler.fetch(new Request(url, init), env, ctx)) as Response;
        await waitOnExecutionContext(ctx);
        return response;
      },
    }),
  );
  return client;
}

/**
 * The names of the tools `client`'s server lists, sorted.
 * @param client - a connected client
 */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).toSorted();
}

/**
 * The text of a tool result's first content block ("" when it has none).
 * @param result - what callTool answered
 */
export function text(result: unknown): string {
  return (result as { content?: { text?: string }[] }).content?.[0]?.text ?? "";
}
