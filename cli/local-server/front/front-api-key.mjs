/**
 * `MCP_API_KEY` checked by the front from a request's headers, before its body is read: a client
 * without the key cannot make the front hold its body (issue #40). The same check as the
 * Worker's (src/app/api-key.ts), which still runs for every request that passes here (defence in
 * depth): `Authorization: Bearer <key>`, compared in constant time over SHA-256 digests, and the
 * same `401` answer (status, headers, `{ error: { code, message, fix } }` body).
 *
 * Security defaults: the answer never echoes what was sent; the key is only compared.
 *
 * Does not do: the Worker's Host check that comes before its key check (front.mjs applies it
 * first, with the Worker's own rule), and the HTML page the Worker renders for a browser's GET:
 * browsers send no body with a GET, and the front checks only requests that carry a body
 * (front.mjs).
 */
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The Worker's refusal, as src/app/api-key.ts words it.
 * @typedef {{ status: 401, headers: Record<string, string>, error: { code: "unauthorized", message: string, fix: string } }} KeyRefusal
 */

/**
 * Builds the check for `key`.
 * @param {string} key - the configured `MCP_API_KEY`
 * @returns {(req: import("node:http").IncomingMessage) => KeyRefusal | undefined} undefined
 *   when the request carries the key
 */
export function apiKeyCheck(key) {
  const expected = digest(key);
  return (req) => {
    // As the Worker reads it (`headers.get`): several Authorization headers joined by ", ".
    const values = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      if (String(req.rawHeaders[i]).toLowerCase() === "authorization")
        values.push(String(req.rawHeaders[i + 1]));
    const match = /^Bearer\s+(.+)$/i.exec(values.join(", "));
    const sent = match?.[1]?.trim() ?? "";
    if (sent !== "" && timingSafeEqual(digest(sent), expected)) return undefined;
    return {
      status: 401,
      headers: { "www-authenticate": 'Bearer realm="mcp"', "access-control-allow-origin": "*" },
      error: {
        code: "unauthorized",
        message:
          sent === ""
            ? "This route needs the server's API key."
            : "The API key sent is not this server's.",
        fix: "Send the API key as `Authorization: Bearer <MCP_API_KEY>`.",
      },
    };
  };
}

/** @param {string} text */
function digest(text) {
  return createHash("sha256").update(text, "utf8").digest();
}
