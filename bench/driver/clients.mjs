/**
 * Real MCP clients over HTTP, one face for both sides: ours is driven by the SDK v2 client
 * (2026-07-28, era negotiated), the anchor by the SDK v1 client (its servers are SDK v1).
 * Every call has a hard timeout and never throws: failures come back as data.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const INFO = { name: "code-mode-bench", version: "1.0.0" };

/**
 * Connects to one endpoint.
 * @param {"ours" | "anchor"} side
 * @param {string} url
 */
export async function connect(side, url) {
  const client =
    side === "ours"
      ? new V2Client(INFO, { versionNegotiation: { mode: "auto" } })
      : new V1Client(INFO);
  const transport = side === "ours" ? new V2Transport(new URL(url)) : new V1Transport(new URL(url));
  // A server that died mid-run must fail the connect, not hang the whole benchmark.
  let timer;
  try {
    await Promise.race([
      client.connect(transport),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`connect to ${url} timed out after 30 s`)),
          30_000,
        );
      }),
    ]);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    async listTools() {
      return (await client.listTools()).tools;
    },
    /**
     * Calls a tool with `{ code }`.
     * @param {string} tool
     * @param {string} code
     * @param {number} [timeoutMs]
     * @returns {Promise<{ ms: number, ok: boolean, text: string, failure?: string }>}
     */
    async call(tool, code, timeoutMs = 60_000) {
      const started = performance.now();
      const params = { name: tool, arguments: { code } };
      const options = { timeout: timeoutMs, maxTotalTimeout: timeoutMs };
      try {
        const result =
          side === "ours"
            ? await client.callTool(params, options)
            : await client.callTool(params, undefined, options);
        const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
        return { ms: performance.now() - started, ok: !result.isError, text };
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        return { ms: performance.now() - started, ok: false, text: "", failure };
      }
    },
    close: () => client.close().catch(() => {}),
  };
}

/**
 * Connects, runs `work`, closes.
 * @template T
 * @param {"ours" | "anchor"} side
 * @param {string} url
 * @param {(client: Awaited<ReturnType<typeof connect>>) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withClient(side, url, work) {
  const client = await connect(side, url);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
