/**
 * Whether an HTTP request to a `code` server is a 2026-07-28 call of the `code` tool itself, read
 * from its `Mcp-Method` and `Mcp-Name` headers (the SDK refuses a request whose headers disagree
 * with its body before any server is built). Such a request never shows the tool's description,
 * so its server need not wait for the upstream's tool list before it is built: the run starts
 * loading its sandbox while a cold upstream is still being listed (see code-mcp-server.ts).
 */

/**
 * @param request - the outer HTTP request, when the handler passes it
 * @returns true for a `tools/call` of `code` announced by its headers; false otherwise
 *   (2025-era requests carry no such headers)
 */
export function isCodeCallRequest(request: Request | undefined): boolean {
  return (
    request?.headers.get("mcp-method") === "tools/call" &&
    request.headers.get("mcp-name")?.trim() === "code"
  );
}
