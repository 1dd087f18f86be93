/**
 * Connections from code mode to the MCP server it wraps. Every kind of upstream is reached with
 * the SDK v2 `Client` (with era negotiation, so 2026-07-28 and 2025-era servers both work):
 *
 * - an SDK v2 or SDK v1 `McpServer` instance: connected once per isolate over an in-memory
 *   transport (one server instance cannot be connected to several transports);
 * - `{ server: () => McpServer }`: a fresh in-memory connection per run, so notifications from
 *   the upstream (logging) belong unambiguously to that run;
 * - `{ url, headers?, fetch? }`: a remote Streamable HTTP endpoint, a connection per run
 *   (Workers I/O cannot be shared across requests); `headers` carry the upstream's auth and are
 *   never shown to the sandbox; `fetch` lets a service binding or test reach the endpoint.
 */
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { CodeModeError } from "../errors";

/** A server instance code mode can connect to in memory. */
export type LocalMcpServer = V2McpServer | V1McpServer;

/** The MCP server that `codeMcpServer()` wraps. See the module comment for the kinds. */
export type CodeUpstream =
  | LocalMcpServer
  | { server: () => LocalMcpServer | Promise<LocalMcpServer> }
  | {
      url: string | URL;
      /** Extra request headers, e.g. `{ authorization: "Bearer …" }`. */
      headers?: Record<string, string>;
      /** Custom fetch (a service binding's fetch, or a test's). */
      fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
    };

/** An open client connection to the upstream. */
export interface UpstreamSession {
  readonly client: Client;
  /** Whether the connection is shared by all runs of the isolate (never closed per run). */
  readonly shared: boolean;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "code-mode-mcp", version: "0.1.0" };

/**
 * Whether `upstream` is a server instance (connected once per isolate).
 * @param upstream - the configured upstream
 */
export function isSharedUpstream(upstream: CodeUpstream): upstream is LocalMcpServer {
  return upstream instanceof V2McpServer || upstream instanceof V1McpServer;
}

/**
 * Opens a client connection to `upstream`.
 * @param upstream - the configured upstream
 * @param onToolsChanged - called when the upstream announces `notifications/tools/list_changed`
 * @throws CodeModeError `upstream_invalid` for an unknown upstream kind, `upstream_unreachable`
 *   when the connection fails (the message never includes configured headers)
 */
export async function openUpstream(
  upstream: CodeUpstream,
  onToolsChanged: () => void,
): Promise<UpstreamSession> {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: "auto" },
    // No debounce: invalidating the cached list is cheap, and the next request must see the change.
    listChanged: {
      tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() },
    },
  });
  const shared = isSharedUpstream(upstream);
  try {
    if (shared || "server" in upstream) {
      const server = shared ? upstream : await upstream.server();
      if (!(server instanceof V2McpServer || server instanceof V1McpServer)) {
        throw new CodeModeError(
          "upstream_invalid",
          "codeMcpServer: `upstream.server()` must return an McpServer from @modelcontextprotocol/server or @modelcontextprotocol/sdk.",
        );
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      // SDK v1 and v2 servers accept the same transport shape; the client negotiates the era.
      await (server as V2McpServer).connect(serverSide);
      await client.connect(clientSide);
    } else if ("url" in upstream) {
      const transport = new StreamableHTTPClientTransport(new URL(upstream.url), {
        ...(upstream.headers ? { requestInit: { headers: upstream.headers } } : {}),
        ...(upstream.fetch ? { fetch: upstream.fetch } : {}),
      });
      await client.connect(transport);
    } else {
      throw new CodeModeError(
        "upstream_invalid",
        "codeMcpServer: `upstream` must be an McpServer, `{ server: () => McpServer }` or `{ url, headers? }`.",
      );
    }
  } catch (error) {
    if (error instanceof CodeModeError) throw error;
    const where = !shared && "url" in upstream ? ` at ${new URL(upstream.url).origin}` : "";
    throw new CodeModeError(
      "upstream_unreachable",
      `Could not connect to the upstream MCP server${where}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return { client, shared, close: () => client.close() };
}
