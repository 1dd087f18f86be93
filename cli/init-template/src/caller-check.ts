// Who may call the MCP endpoints: whoever sends this Worker's key, `Authorization: Bearer
// <MCP_API_KEY>`. The endpoints run code against your API with your credential, so a deployed
// Worker that anyone could call would let anyone who learns its URL make every request the spec
// allows. `code-mode-mcp init` wrote a random key to .dev.vars for `npm run dev`; deployed, set
// one with `npx wrangler secret put MCP_API_KEY`. Without a key the endpoints refuse every call,
// unless ALLOW_ANONYMOUS=on says, in so many words, that the Worker is meant to be open.

/** The header a client sends the key in. */
export const KEY_HEADER = "Authorization";

/**
 * Checks the caller of an MCP request; `undefined` lets it through, a `Response` refuses it.
 * Preflights (`OPTIONS`) pass: browsers send them without credentials.
 * @param request - the incoming request
 * @param env - the Worker's bindings (MCP_API_KEY, ALLOW_ANONYMOUS)
 */
export async function refuseCaller(
  request: Request,
  env: Pick<Cloudflare.Env, "MCP_API_KEY" | "ALLOW_ANONYMOUS">,
): Promise<Response | undefined> {
  if (request.method === "OPTIONS") return undefined;
  const key = typeof env.MCP_API_KEY === "string" ? env.MCP_API_KEY : "";
  if (key === "") {
    if (env.ALLOW_ANONYMOUS === "on") return undefined;
    return refusal(
      403,
      "no_caller_check",
      "This MCP server has no MCP_API_KEY, so it serves no one: it would otherwise run requests with its credentials for anyone who finds its URL.",
      "Set a key (npx wrangler secret put MCP_API_KEY; .dev.vars for npm run dev) and send it as `Authorization: Bearer <MCP_API_KEY>`, or set ALLOW_ANONYMOUS=on (wrangler.jsonc vars) to serve anyone.",
    );
  }
  const sent = /^Bearer\s+(.+)$/i.exec(request.headers.get(KEY_HEADER) ?? "")?.[1]?.trim() ?? "";
  if (sent !== "" && (await sameKey(sent, key))) return undefined;
  return refusal(
    401,
    "unauthorized",
    sent === ""
      ? "This MCP server needs its API key, and the request had none."
      : "The API key sent is not this server's.",
    "Send the key as the header `Authorization: Bearer <MCP_API_KEY>` (README.md, first section).",
  );
}

/**
 * Whether two keys are equal, in constant time: both are hashed first, so neither their length
 * nor a common prefix shows in how long the comparison takes.
 */
async function sameKey(sent: string, key: string): Promise<boolean> {
  const digest = (text: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const [a, b] = await Promise.all([digest(sent), digest(key)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** A refusal with what went wrong and what to do; it never echoes what was sent. */
function refusal(status: 401 | 403, code: string, message: string, fix: string): Response {
  return Response.json(
    { error: { code, message, fix } },
    {
      status,
      headers: status === 401 ? { "www-authenticate": 'Bearer realm="mcp"' } : {},
    },
  );
}
