/** Test helpers: real SDK v2 clients talking HTTP to a handler without a network. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StatelessMcpHandler } from "../../../src/index";

/** A fetch that hands every request straight to the handler (real HTTP handling, no socket). */
export function direct(handler: StatelessMcpHandler) {
  return (url: string | URL | Request, init?: RequestInit) => handler.fetch(new Request(url, init));
}

/** Connects an SDK v2 client (era auto-negotiated) to `handler`. */
export async function connect(
  handler: StatelessMcpHandler,
  url = "http://localhost/mcp",
): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: direct(handler) }));
  return client;
}

/** The first text block of a tool result. */
export function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}
