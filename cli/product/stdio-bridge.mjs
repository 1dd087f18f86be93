// `code-mode-mcp --stdio`: the MCP stdio transport (the SDK's own, newline-delimited JSON-RPC on
// stdin/stdout) bridged to the local server's Streamable HTTP endpoint, so a desktop client can
// start the product as a command. stdout carries protocol only; everything else goes to `log`.
// A `tools/call` that fails in the local server itself (a runtime replaced under it, the server
// unreachable) is answered as a tool error the model can read and act on (retry), never as a
// transport failure that desktop clients show as a broken server.
/* oxlint-disable unicorn/prefer-add-event-listener -- the SDK transports have only these callbacks */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * @typedef {import("@modelcontextprotocol/sdk/types.js").JSONRPCMessage} Message
 */

/** What the SDK's HTTP transport puts before the body of a non-2xx answer in its error. */
const POST_ERROR = /^Streamable HTTP error: Error POSTing to endpoint: /;

/**
 * The local server's own answer inside the HTTP transport's error for a refused POST (the SDK
 * throws `Streamable HTTP error: Error POSTing to endpoint: <body>`), so the client gets that
 * error once instead of JSON inside an error string inside another error: a JSON-RPC error keeps
 * its code and message; the product's HTTP error (`{ error: { code, message, fix } }`) becomes
 * its message and fix.
 * @param {unknown} error - what `send` threw
 * @returns {{ code?: number, message: string } | undefined} undefined when the server did not answer
 */
export function serverAnswer(error) {
  const text = error instanceof Error ? error.message : "";
  if (!POST_ERROR.test(text)) return undefined;
  const body = text.replace(POST_ERROR, "");
  /** @type {any} */
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: `code-mode-mcp: the local server refused the request: ${body.trim()}` };
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const e = first?.error;
  if (typeof e?.code === "number" && typeof e.message === "string")
    return { code: e.code, message: e.message };
  if (typeof e?.message === "string")
    return { message: typeof e.fix === "string" ? `${e.message} Fix: ${e.fix}` : e.message };
  return { message: `code-mode-mcp: the local server refused the request: ${body.trim()}` };
}

/**
 * Runs the bridge until stdin ends. Messages that arrive before `ready` resolves (a client sends
 * `initialize` at once; the runtime takes seconds to start) are held and sent in order.
 * @param {object} options
 * @param {string} options.url - the local MCP endpoint, e.g. http://127.0.0.1:PORT/mcp
 * @param {string} [options.apiKey] - the server's `MCP_API_KEY`, sent as a bearer token on every
 *   request (a --stdio launch's own key: cli/local-server/stdio-caller-key.mjs)
 * @param {Record<string, string>} [options.headers] - sent on every request too: this launch's
 *   secret, without which the server's port answers nothing (cli/local-server/front/bridge-only.mjs)
 * @param {Promise<void>} options.ready - resolves when the local server answers
 * @param {(line: string) => void} options.log - stderr
 * @param {() => void} options.onClose - stdin ended or broke: the client is gone
 * @returns {Promise<void>}
 */
export async function runStdioBridge({ url, apiKey, headers = {}, ready, log, onClose }) {
  const stdio = new StdioServerTransport();
  const sent = { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  const http = new StreamableHTTPClientTransport(
    new URL(url),
    Object.keys(sent).length > 0 ? { requestInit: { headers: sent } } : {},
  );
  /** @type {Message[]} */
  const held = [];
  let open = false;
  /** ids of `initialize` requests, to pass the negotiated version on to the HTTP side */
  const initializing = new Set();
  /** ids of `tools/call` requests still unanswered */
  const toolCalls = new Set();

  /**
   * The answer for a request the local server failed: a tool error for `tools/call`, a
   * JSON-RPC error otherwise.
   * @param {string | number} id
   * @param {string} text
   * @returns {Message}
   */
  const failure = (id, text) => {
    if (toolCalls.delete(id))
      return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } };
    return { jsonrpc: "2.0", id, error: { code: -32603, message: text } };
  };

  /** @param {Message} message */
  const forward = async (message) => {
    if ("method" in message && message.method === "initialize" && "id" in message)
      initializing.add(message.id);
    if ("method" in message && message.method === "tools/call" && "id" in message)
      toolCalls.add(message.id);
    try {
      await http.send(message);
    } catch (error) {
      const answered = serverAnswer(error);
      // A refusal the server wrote itself is its own clear error: passed on once, not logged
      // as a bridge failure. Anything else (no server at all) is the bridge's to say.
      // After the client closed or a stop signal, a message cut short is part of the close.
      if (!answered && !closed)
        log(
          `code-mode-mcp: could not pass a message to the local server: ${/** @type {Error} */ (error).message}`,
        );
      // A request must get an answer, or the client waits for ever.
      if ("method" in message && "id" in message) {
        if (answered?.code !== undefined && !toolCalls.has(message.id))
          await stdio.send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: answered.code, message: answered.message },
          });
        else
          await stdio.send(
            failure(
              message.id,
              answered?.message ??
                `code-mode-mcp: the local server failed: ${/** @type {Error} */ (error).message}`,
            ),
          );
      }
    }
  };

  stdio.onmessage = (message) => {
    if (open) void forward(message);
    else held.push(message);
  };
  stdio.onerror = (error) => log(`code-mode-mcp: stdin: ${error.message}`);
  http.onmessage = (message) => {
    if ("id" in message && initializing.has(message.id) && "result" in message) {
      initializing.delete(message.id);
      const version = /** @type {{ protocolVersion?: unknown }} */ (message.result).protocolVersion;
      if (typeof version === "string") http.setProtocolVersion(version);
    }
    // The front's answer for a request whose runtime was replaced under it (-32603, "the
    // runtime was restarted because …; retry") reaches a tool call as a tool error.
    const id = "id" in message ? message.id : undefined;
    if (
      id !== undefined &&
      "error" in message &&
      message.error.code === -32603 &&
      toolCalls.has(id)
    ) {
      void stdio.send(failure(id, message.error.message));
      return;
    }
    if ("id" in message) toolCalls.delete(message.id);
    void stdio.send(message);
  };
  let closed = false;
  // A desktop client may end the server with a signal instead of closing stdin: the streams
  // the stop cuts are part of the close too (the supervisor stops the runtimes).
  for (const signal of /** @type {const} */ (["SIGTERM", "SIGINT", "SIGHUP"]))
    process.once(signal, () => (closed = true));
  http.onerror = (error) => {
    // Closing aborts the standalone SSE stream: not worth a line.
    if (!closed) log(`code-mode-mcp: local server: ${error.message}`);
  };
  const close = () => {
    if (closed) return;
    closed = true;
    void http.close().catch(() => {});
    onClose();
  };
  stdio.onclose = close;
  process.stdin.once("end", close);
  process.stdin.once("close", close);

  await stdio.start();
  await http.start();
  await ready;
  for (const message of held.splice(0)) await forward(message);
  open = true;
  // Anything that arrived while the held messages were sent.
  for (const message of held.splice(0)) await forward(message);
}
