/**
 * A `--stdio` server's port answers only its own bridge. The desktop client speaks to the bridge
 * (cli/product/stdio-bridge.mjs) on stdin/stdout, but the bridge reaches the server over HTTP on
 * a free port of 127.0.0.1, which every process on the machine reaches. A caller check the user
 * configures does not close that: with `FORWARD_CALLER_TOKEN=on` (the configuration refuses an
 * `MCP_API_KEY` beside it) a stranger's keyless `tools/call` ran with the user's `API_TOKEN`,
 * and the status page's run console is open to any page of the browser too. So every request
 * on such a port, on every route and upgrade, must carry {@link BRIDGE_HEADER} with this launch's
 * secret, made per launch by the launcher (bin/code-mode-mcp.mjs) and handed to the bridge and
 * the front in memory; anything else gets `403` from its headers, before a byte of its body is
 * read. The front drops the header before a runtime sees the request (request-head.mjs), and it
 * is never logged (the request log holds method, path and status only).
 *
 * Security defaults: compared in constant time over SHA-256 digests; the answer never echoes
 * what was sent.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The header the bridge sends with this launch's secret (lower case: Node's name for it). */
export const BRIDGE_HEADER = "x-code-mode-stdio-bridge";

/** A new launch's secret: 256 random bits, URL-safe text. */
export function newBridgeSecret() {
  return Buffer.from(randomBytes(32)).toString("base64url");
}

/**
 * The front's refusal of a request that is not its bridge's.
 * @typedef {{ status: 403, error: { code: "forbidden", message: string, fix: string } }} BridgeRefusal
 */

/**
 * Builds the check for `secret`.
 * @param {string} secret - this launch's secret ({@link newBridgeSecret})
 * @returns {(req: import("node:http").IncomingMessage) => BridgeRefusal | undefined} undefined
 *   when the request carries the secret (once: a repeated header is refused)
 */
export function bridgeOnlyCheck(secret) {
  const expected = digest(secret);
  return (req) => {
    const values = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      if (String(req.rawHeaders[i]).toLowerCase() === BRIDGE_HEADER)
        values.push(String(req.rawHeaders[i + 1]));
    if (values.length === 1 && timingSafeEqual(digest(values[0] ?? ""), expected)) return undefined;
    return {
      status: 403,
      error: {
        code: "forbidden",
        message:
          "This port belongs to a `code-mode-mcp --stdio` server: only the MCP client that started it (through its stdin/stdout) may call it.",
        fix: "Call the server through the client that launched it, or start a server of your own for other programs (`code-mode-mcp serve` with `MCP_API_KEY` set).",
      },
    };
  };
}

/** @param {string} text */
function digest(text) {
  return createHash("sha256").update(text, "utf8").digest();
}
