/**
 * The one place that knows the CORS defaults for every MCP endpoint this library serves.
 * The stateless handler and the stateful `McpAgent` both read them from here, so a header
 * the protocol grows (say `Mcp-Name`) is added once.
 */

/** CORS settings for an MCP endpoint; every field falls back to {@link DEFAULT_CORS_OPTIONS}. */
export interface CorsOptions {
  /** `Access-Control-Allow-Origin`. A concrete origin also joins the Origin allowlist. */
  origin?: string;
  /** `Access-Control-Allow-Methods`. */
  methods?: string;
  /** `Access-Control-Allow-Headers`. */
  headers?: string;
  /** `Access-Control-Expose-Headers`. */
  exposeHeaders?: string;
  /** `Access-Control-Max-Age` in seconds. */
  maxAge?: number;
}

/**
 * The default CORS header values.
 *
 * The allowed request headers are the ones MCP clients send across both protocol eras:
 * the 2025 session header and resumption cursor, and the 2026-07-28 standard headers.
 * `Authorization` must be listed by name because a `*` wildcard never covers it.
 *
 * Security defaults: `origin` is `*` because CORS headers are not authentication; which
 * browser origins may talk to the endpoint is decided by the Origin guard
 * (see `guardRequest`), which runs before any CORS header is written.
 */
export const DEFAULT_CORS_OPTIONS: Readonly<Required<CorsOptions>> = Object.freeze({
  origin: "*",
  methods: "GET, POST, DELETE, OPTIONS",
  headers:
    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  exposeHeaders: "Mcp-Session-Id, WWW-Authenticate",
  maxAge: 86400,
});

/**
 * Builds the CORS response headers for `options` layered over the defaults.
 *
 * @param options - caller overrides; `undefined` fields keep the default
 * @returns a fresh `Headers` object holding only the `Access-Control-*` headers
 */
export function corsHeaders(options: CorsOptions = {}): Headers {
  const merged = { ...DEFAULT_CORS_OPTIONS, ...definedOnly(options) };
  return new Headers({
    "Access-Control-Allow-Origin": merged.origin,
    "Access-Control-Allow-Methods": merged.methods,
    "Access-Control-Allow-Headers": merged.headers,
    "Access-Control-Expose-Headers": merged.exposeHeaders,
    "Access-Control-Max-Age": String(merged.maxAge),
  });
}

/**
 * Answers a CORS preflight (`OPTIONS`) with `204` and the CORS headers.
 *
 * @param options - CORS overrides
 * @returns the preflight response
 */
export function preflightResponse(options: CorsOptions = {}): Response {
  return new Response(null, { status: 204, headers: corsHeaders(options) });
}

/**
 * Returns `response` with the CORS headers set (replacing any the inner handler wrote).
 * The body is passed through untouched, so a streaming (SSE) body keeps streaming.
 *
 * Per request this is on every answer's path, so it does little: the header values are
 * worked out once per options object, and a response built in JavaScript (mutable headers,
 * as the SDK's and this library's are) gets them set in place; only one whose headers are
 * immutable (e.g. a `fetch` answer passed through) is copied into a new response.
 *
 * @param response - the response to decorate
 * @param options - CORS overrides
 * @returns `response` itself, or a new response sharing its body
 */
export function withCors(response: Response, options: CorsOptions = {}): Response {
  const pairs = corsHeaderPairs(options);
  try {
    for (const [name, value] of pairs) response.headers.set(name, value);
    return response;
  } catch {
    // Immutable headers: copied below.
  }
  const headers = new Headers(response.headers);
  for (const [name, value] of pairs) headers.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** The CORS header pairs of each options object a handler was given (built on first use). */
const PAIRS = new WeakMap<CorsOptions, readonly (readonly [string, string])[]>();
/** The pairs of the defaults, for calls without options (a fresh `{}` each time). */
const DEFAULT_PAIRS = Object.freeze([...corsHeaders()].map(([n, v]) => [n, v] as const));

/**
 * The CORS header pairs for `options`, worked out once per options object: the same frozen list
 * for the same object, so callers may key their own caches on it.
 * @param options - CORS overrides
 */
export function corsHeaderPairs(options: CorsOptions): readonly (readonly [string, string])[] {
  let pairs = PAIRS.get(options);
  if (pairs === undefined) {
    pairs = Object.values(options).every((v) => v === undefined)
      ? DEFAULT_PAIRS
      : Object.freeze([...corsHeaders(options)].map(([n, v]) => [n, v] as const));
    PAIRS.set(options, pairs);
  }
  return pairs;
}

/** Drops `undefined` fields so they do not overwrite defaults in a spread. */
function definedOnly(options: CorsOptions): CorsOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
