/**
 * Optional bearer API key in front of the MCP routes and the demo API (`MCP_API_KEY`).
 *
 * Security defaults: compared in constant time over SHA-256 digests (no length or prefix
 * timing); a missing or wrong key gets `401` with `WWW-Authenticate: Bearer`, and the response
 * never echoes what was sent.
 *
 * Does not do: per-user identity (every holder of the key is the same caller) or rate limiting;
 * use OAuth (`OAUTH=on`) for per-user access.
 */
import { HttpError } from "./errors/http-error";

/**
 * Checks `Authorization: Bearer <key>`.
 * @param request - the incoming request
 * @param key - the configured key
 * @throws HttpError `401 unauthorized` when the key is missing or does not match
 */
export async function checkApiKey(request: Request, key: string): Promise<void> {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  const sent = match?.[1]?.trim() ?? "";
  const [a, b] = await Promise.all([digest(sent), digest(key)]);
  if (sent !== "" && crypto.subtle.timingSafeEqual(a, b)) return;
  throw new HttpError(
    401,
    "unauthorized",
    sent === ""
      ? "This route needs the server's API key."
      : "The API key sent is not this server's.",
    "Send the API key as `Authorization: Bearer <MCP_API_KEY>`.",
    { "www-authenticate": 'Bearer realm="mcp"', "access-control-allow-origin": "*" },
  );
}

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}
