/**
 * An SDK v2 client connected to one of this Worker's own MCP handlers in-process (the
 * handler's `fetch` face, no network), used by the status page to list tools and run `search`
 * exactly as a remote client would.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StatelessMcpHandler } from "../mcp/stateless/handler-types";

/**
 * Runs `use` with a client connected to `handler`, closing it afterwards.
 * @param handler - the MCP handler
 * @param route - the route it serves (the URL's path)
 * @param use - what to do with the client
 */
export async function withSelfClient<T>(
  handler: StatelessMcpHandler,
  route: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client(
    { name: "status-page", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${route}`), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => {});
  }
}
