/**
 * An SDK v2 client connected to one of this Worker's own MCP handlers in-process (the
 * handler's `fetch` face, no network), used by the status page to list tools and run `search`
 * exactly as a remote client would.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { StatelessMcpHandler } from "../mcp/stateless/handler-types";

/**
 * Runs `use` with a client connected to `handler`, closing it afterwards.
 * @param handler - the MCP handler
 * @param route - the route it serves (the URL's path)
 * @param use - what to do with the client
 * @param authInfo - the identity the handler sees (the status page passes {@link STATUS_VIEWER})
 */
/**
 * The identity of the status page's own client: no principal, so its lists show no one's
 * skills (the page is public; skill-owner.ts answers no owner for exactly this object).
 */
export const STATUS_VIEWER: AuthInfo = Object.freeze({
  token: "",
  clientId: "status-page",
  scopes: [],
}) as AuthInfo;

export async function withSelfClient<T>(
  handler: StatelessMcpHandler,
  route: string,
  use: (client: Client) => Promise<T>,
  authInfo?: AuthInfo,
): Promise<T> {
  const client = new Client(
    { name: "status-page", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${route}`), {
    fetch: (url, init) => handler.fetch(new Request(url, init), authInfo ? { authInfo } : {}),
  });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => {});
  }
}
