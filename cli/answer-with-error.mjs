// A `--stdio` launch that cannot start answers its client before it exits (issue #42): a desktop
// client reads only stdout, so a message on stderr alone reaches it as "MCP error -32000:
// Connection closed". The client's first request (its `initialize`) gets a JSON-RPC error carrying
// the same message and fix the terminal gets. Used for every refusal before the stdio bridge
// reads stdin: an older Node, a missing wrangler, and every bad setting, spec or port of
// cli/serve.mjs.
import { createInterface } from "node:readline";

/** How long to wait for the client's first request (desktop clients send it at once). */
const WAIT_MS = 10_000;

/**
 * Answers the first JSON-RPC request on stdin with an MCP error carrying `message`, then returns
 * (notifications are skipped; gives up after 10 s or when stdin ends).
 * @param {string} message
 * @returns {Promise<void>}
 */
export async function answerWithError(message) {
  const lines = createInterface({ input: process.stdin });
  const timer = setTimeout(() => lines.close(), WAIT_MS);
  for await (const line of lines) {
    /** @type {any} */
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      continue;
    }
    if (request?.id === undefined) continue;
    const error = { code: -32603, message };
    await new Promise((written) =>
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: request.id, error })}\n`,
        written,
      ),
    );
    break;
  }
  clearTimeout(timer);
  lines.close();
}
