/**
 * The same minimal client for both sides of P7: one `tools/call` as raw JSON-RPC over `fetch`,
 * no MCP client library. With it the rows time the servers, not the client libraries (the SDK
 * v2 client does more per call than the SDK v1 client: see bench/README.md, P7).
 *
 * Two framings, each exactly what a real client sends on a warm connection:
 * - `2026-07-28`: as the SDK v2 client (`@modelcontextprotocol/client`) sends a `tools/call`
 *   after its `server/discover` probe (captured from it): the `Mcp-Method`, `Mcp-Name` and
 *   `MCP-Protocol-Version` headers and the version, client info and capabilities in `_meta`.
 *   Stateless: no `initialize`, no session.
 * - `2025-11-25`: as the SDK v1 client sends it after `initialize` (captured likewise): the
 *   `MCP-Protocol-Version` header and no `_meta`. The servers it is used on are stateless (no
 *   session id), so the call needs no handshake of its own.
 * Every call has a hard timeout and never throws: failures come back as data.
 */

const INFO = { name: "code-mode-bench", version: "1.0.0" };

/** The framings this client speaks. */
export const RAW_FRAMINGS = /** @type {const} */ (["2026-07-28", "2025-11-25"]);

/**
 * The headers and body of one `tools/call`, as the SDK client of that era sends it.
 * @param {(typeof RAW_FRAMINGS)[number]} framing
 * @param {number} id - the JSON-RPC id
 * @param {string} tool
 * @param {Record<string, unknown>} args
 */
export function rawToolCall(framing, id, tool, args) {
  /** @type {Record<string, string>} */
  const headers = {
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": framing,
  };
  if (framing === "2025-11-25") {
    const body = {
      method: "tools/call",
      params: { name: tool, arguments: args },
      jsonrpc: "2.0",
      id,
    };
    return { headers, body: JSON.stringify(body) };
  }
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": framing,
    "io.modelcontextprotocol/clientInfo": INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const body = {
    method: "tools/call",
    params: { name: tool, arguments: args, _meta },
    jsonrpc: "2.0",
    id,
  };
  return {
    headers: { ...headers, "mcp-method": "tools/call", "mcp-name": tool },
    body: JSON.stringify(body),
  };
}

/**
 * The JSON-RPC message answering `id` in a response body: plain JSON, or the `data:` lines of
 * an SSE stream (a 2025-era server may answer a POST with a stream).
 * @param {string} contentType
 * @param {string} text
 * @param {number} id
 * @returns {any} the message, or undefined when the body holds none for `id`
 */
export function answerIn(contentType, text, id) {
  if (!contentType.includes("text/event-stream")) {
    const message = JSON.parse(text);
    return (Array.isArray(message) ? message : [message]).find((m) => m?.id === id);
  }
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data === "") continue;
    const message = JSON.parse(data);
    if (message?.id === id) return message;
  }
  return undefined;
}

/**
 * A raw client for one endpoint, with the face of clients.mjs's `connect` (`call`, `close`).
 * @param {(typeof RAW_FRAMINGS)[number]} framing
 * @param {string} url
 * @param {{ acceptEncoding?: string }} [options] - `acceptEncoding: "identity"` asks for an
 *   uncompressed answer: the bench's dev server (Miniflare's entry Worker) gzips JSON answers
 *   the way Cloudflare's edge does, about 1 ms per call on the bench machine, and leaves SSE
 *   answers alone. Without it, fetch's default (`gzip, deflate`) is sent, as the SDK clients do.
 */
export function rawClient(framing, url, { acceptEncoding } = {}) {
  let nextId = 0;
  return {
    /**
     * Calls a tool with `{ code }`.
     * @param {string} tool
     * @param {string} code
     * @param {number} [timeoutMs]
     * @returns {Promise<{ ms: number, ok: boolean, text: string, failure?: string }>}
     */
    async call(tool, code, timeoutMs = 60_000) {
      const id = nextId++;
      const { headers, body } = rawToolCall(framing, id, tool, { code });
      if (acceptEncoding !== undefined) headers["accept-encoding"] = acceptEncoding;
      const started = performance.now();
      try {
        const response = await fetch(url, {
          method: "POST",
          headers,
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        const ms = performance.now() - started;
        const message = answerIn(response.headers.get("content-type") ?? "", text, id);
        if (message?.result === undefined) {
          const failure = `HTTP ${response.status}: ${text.slice(0, 300)}`;
          return { ms, ok: false, text: "", failure };
        }
        const result = message.result;
        /** @type {{ type: string, text?: string }[]} */
        const content = result.content ?? [];
        const out = content.map((c) => (c.type === "text" ? c.text : "")).join("");
        return { ms, ok: !result.isError, text: out };
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        return {
          ms: performance.now() - started,
          ok: false,
          text: "",
          failure,
        };
      }
    },
    close: async () => {},
  };
}
