// A real MCP client (SDK v2) talking to this Worker in-process: requests go to the Worker's own
// fetch handler inside the test runtime (workerd), so no port and no network are involved. It
// sends the key the test configuration gives the Worker (vitest.config.ts), as a client must.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env, exports } from "cloudflare:workers";

/** The Worker's fetch handler. */
export const worker = (
  exports as unknown as { default: { fetch(request: Request): Promise<Response> } }
).default;

/** The headers that let a request through the caller check: the Worker's key. */
export async function callerHeaders(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${env.MCP_API_KEY}` };
}

/**
 * Connects a client to one of the Worker's MCP endpoints.
 * @param path - `/mcp` or `/mcp/code`
 * @param key - the key to send (default: the Worker's MCP_API_KEY); `null` sends none
 */
export async function connect(path: string, key: string | null = env.MCP_API_KEY): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: (url, init) => worker.fetch(new Request(url, init)),
      ...(key === null ? {} : { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    }),
  );
  return client;
}

/** The first text block of a tool result. */
export function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === "text")?.text ?? "";
}

/**
 * The first text block of a tool result, parsed as JSON. A result over the tool's limit (32 KB)
 * comes back cut where marked, with a note after it: that is reported as such, so a test asks for
 * less instead of failing on a JSON syntax error.
 */
export function json(result: unknown): unknown {
  const body = text(result);
  const note = body.search(/\n\n\[The result was \d+ bytes and was truncated/);
  if (note !== -1)
    throw new Error(`the result was truncated (return less): ${body.slice(note + 2, note + 200)}`);
  return JSON.parse(body || "null");
}
