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

/**
 * Checks `Authorization: Bearer <key>`.
 * @param request - the incoming request
 * @param key - the configured key
 * @returns `undefined` when the key matches, otherwise the `401` response to send
 */
export async function checkApiKey(request: Request, key: string): Promise<Response | undefined> {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  const sent = match?.[1]?.trim() ?? "";
  const [a, b] = await Promise.all([digest(sent), digest(key)]);
  if (sent !== "" && crypto.subtle.timingSafeEqual(a, b)) return undefined;
  return Response.json(
    {
      error: "unauthorized",
      message: "Send the API key as `Authorization: Bearer <MCP_API_KEY>`.",
    },
    {
      status: 401,
      headers: { "www-authenticate": 'Bearer realm="mcp"', "access-control-allow-origin": "*" },
    },
  );
}

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}
