// A real MCP client (SDK v2) talking to this Worker in-process: requests go to the Worker's own
// fetch handler inside the test runtime (workerd), so no port and no network are involved.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { exports } from "cloudflare:workers";

const worker = (exports as unknown as { default: { fetch(request: Request): Promise<Response> } })
  .default;

/**
 * Connects a client to one of the Worker's MCP endpoints.
 * @param path - `/mcp` or `/mcp/code`
 */
export async function connect(path: string): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: (url, init) => worker.fetch(new Request(url, init)),
    }),
  );
  return client;
}

/** The first text block of a tool result, parsed as JSON. */
export function json(result: unknown): unknown {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return JSON.parse(content.find((c) => c.type === "text")?.text ?? "null");
}
