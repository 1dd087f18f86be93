/**
 * What the front knows of the product Worker's routes (src/app/app.ts) before it reads a body:
 * the largest body each route takes, which routes speak MCP (their errors are JSON-RPC), and
 * which ones `MCP_API_KEY` protects. The Worker stays the judge of every request; these only let
 * the front refuse early what the Worker would refuse anyway, so that a body it would refuse is
 * never held here.
 */

/** The MCP endpoints: `/mcp` (search, execute) and `/mcp/code` (src/app/endpoints.ts). */
const MCP_ROUTES = new Set(["/mcp", "/mcp/code"]);
/**
 * The largest body an MCP endpoint takes: the MCP SDK's handler reads at most 4 MiB
 * (`DEFAULT_MAX_REQUEST_BODY_SIZE`; the product sets no other `maxRequestBodySize`), in bytes.
 */
export const MCP_MAX_BODY_BYTES = 4 * 1_048_576;
/**
 * `/api/search` takes a body of at most 3 × 65,536 bytes (src/app/search-endpoint.ts
 * `MAX_BODY_BYTES`: a program of 65,536 characters, at most 3 bytes each in UTF-8).
 */
export const SEARCH_MAX_BODY_BYTES = 3 * 65_536;
/**
 * Every other route: the demo API's largest body (a comment of 4,000 characters, with its JSON)
 * is a few KB, the OAuth forms and token requests less; the status page, `/health`,
 * `/api/status` and `/api/runs` read none.
 */
export const OTHER_MAX_BODY_BYTES = 65_536;
/** The largest body any route takes: the front's per-body limit. */
export const MAX_ROUTE_BODY_BYTES = MCP_MAX_BODY_BYTES;

/**
 * A target the URL parser would give back unchanged: a slash, then letters, digits, `-`, `_`,
 * `~` and single slashes (no dot segment, escape, backslash, query, or `//` that would start a
 * host).
 */
const PLAIN_PATH = /^\/(?:[\w~-]+\/)*[\w~-]*$/;

/**
 * The path of a request as the Worker reads it (`new URL(request.url).pathname`: dot segments
 * resolved, percent-escapes kept), or "" for a target that is no URL path (`OPTIONS *`).
 * @param {string | undefined} target - the request line's target (`req.url`)
 */
export function pathOf(target) {
  // A plain path (what clients send: `/mcp`) is its own pathname: no URL parse for it.
  if (target !== undefined && PLAIN_PATH.test(target)) return target;
  try {
    return new URL(target ?? "/", "http://front.invalid").pathname;
  } catch {
    return "";
  }
}

/**
 * Whether `path` is an MCP endpoint (its clients expect JSON-RPC errors).
 * @param {string} path - from {@link pathOf}
 */
export function isMcpRoute(path) {
  return MCP_ROUTES.has(path);
}

/**
 * The largest body the route at `path` takes.
 * @param {string} path - from {@link pathOf}
 */
export function bodyLimitOf(path) {
  // A skills import carries whole skills (src/app/skills/skills-api.ts bounds it the same).
  if (MCP_ROUTES.has(path) || path === "/api/skills/import") return MCP_MAX_BODY_BYTES;
  if (path === "/api/search") return SEARCH_MAX_BODY_BYTES;
  return OTHER_MAX_BODY_BYTES;
}

/**
 * Whether the Worker asks this request for `MCP_API_KEY` (src/app/app.ts): every method but
 * `OPTIONS` (a preflight carries no credentials) on the MCP endpoints, `/api/search`,
 * `/api/runs` and `/api/skills` (and below) and the demo API (`/demo-api` and below). `/health`, the status page,
 * `/api/status`, `/favicon.ico` and unknown paths are answered without it.
 * @param {string | undefined} method
 * @param {string} path - from {@link pathOf}
 */
export function needsApiKey(method, path) {
  if (method === "OPTIONS") return false;
  return (
    MCP_ROUTES.has(path) ||
    path === "/api/search" ||
    path === "/api/runs" ||
    path.startsWith("/api/runs/") ||
    path === "/api/skills" ||
    path.startsWith("/api/skills/") ||
    path === "/demo-api" ||
    path.startsWith("/demo-api/")
  );
}
