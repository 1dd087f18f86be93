/**
 * The one HTTP error of the product's routes (hono's model: one `HTTPException`, rendered in one
 * `onError`). A route that refuses a request throws an {@link HttpError}; the router catches it
 * and {@link renderHttpError} turns it into the answer: the status, and the body
 * `{ "error": { "code", "message", "fix" } }`, or the same three as a small HTML page for a
 * browser (a route meant for one, like the OAuth consent page, or a page navigation).
 *
 * Not here, because their protocols fix the shape: JSON-RPC errors on the MCP endpoints
 * (`/mcp`, `/mcp/code`; src/errors.ts `jsonRpcError`, the SDK's own answers), and the OAuth
 * provider's own `{ error, error_description }` answers (RFC 6749/6750) on `/token`,
 * `/register` and to a request without a valid access token. The Node front of the local server
 * (cli) writes this same shape for the few requests it refuses itself; its codes are listed here
 * too, so docs/errors.md has one table (test/unit/errors.test.ts checks it).
 *
 * Security defaults: a message never carries what the client sent as a credential; an error
 * that is not an {@link HttpError} (a bug) answers `500 internal_error` without its message,
 * which could hold anything, and is logged for the operator instead.
 */

/** Every code an {@link HttpError} carries, each with what it means (docs/errors.md lists them). */
export const HTTP_ERROR_CODES = {
  not_found: "no such route, or no such item at the route",
  method_not_allowed: "the route does not take this HTTP method (the Allow header says which)",
  invalid_request: "the body, a parameter or a query value is not what the route takes",
  body_too_large: "the request body is over the route's limit",
  body_timeout: "the request body did not arrive in time (local server)",
  unauthorized: "the route needs `Authorization: Bearer <MCP_API_KEY>` and it was missing or wrong",
  no_caller_check:
    "a deployed server with no MCP_API_KEY or OAuth refuses all (opt out: ALLOW_ANONYMOUS=on)",
  forbidden_host: "the Host header names a host this server does not answer to (ALLOWED_HOSTNAMES)",
  cross_site_request:
    "a browser page of another site sent a request to an app route that is not MCP (cross-site.ts)",
  invalid_host: "the Host header is no host name or address with an optional port (local server)",
  misconfigured: "the configuration is invalid, so the server serves nothing but its problems",
  code_endpoint_off: "/mcp/code is off: no upstream MCP server is configured",
  runs_off: "the run history is off (RUNS=off)",
  runs_private: "the run history cannot be read with FORWARD_CALLER_TOKEN=on",
  skills_off: "saved skills are off (SKILLS=off)",
  skill_invalid: "a skill to save or import breaks a rule (name, size, format, read-only, limit)",
  invalid_authorization: "the OAuth authorization request is malformed or from an unknown client",
  wrong_passphrase: "the OAuth consent form was sent with a wrong owner or user passphrase",
  user_passphrase_needed:
    "a first OAuth sign-in under a user name did not set that user's passphrase",
  user_name_too_long: "an OAuth user name is over 200 characters once URL-encoded",
  too_many_attempts: "too many wrong passphrases; wait as Retry-After says",
  too_many_registrations: "too many OAuth client registrations; wait as Retry-After says",
  runtime_restarted: "the local runtime serving the request was replaced; retry (local server)",
  server_starting: "no runtime is ready yet: the server is starting; retry soon (local server)",
  server_busy:
    "bodies held reached FRONT_BODY_BUDGET_MB, or connections FRONT_MAX_CONNECTIONS (local)",
  internal_error: "the server failed on this request (a bug; the server log has the details)",
} as const;

/** A stable, machine-readable code of an {@link HttpError}. */
export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/** The JSON body of every product route's error: the one shape. */
export interface HttpErrorBody {
  error: { code: HttpErrorCode; message: string; fix: string };
}

/**
 * A refused request: thrown by a route, rendered by {@link renderHttpError}.
 */
export class HttpError extends Error {
  /** The HTTP status, 4xx or 5xx. */
  readonly status: number;
  /** A stable, machine-readable code ({@link HTTP_ERROR_CODES}). */
  readonly code: HttpErrorCode;
  /** What to do about it, said to the person or program that sent the request. */
  readonly fix: string;
  /** Headers the answer must carry (`Allow`, `WWW-Authenticate`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  /**
   * @param status - the HTTP status (400–599)
   * @param code - stable machine-readable code
   * @param message - what went wrong
   * @param fix - what to do about it
   * @param headers - headers the answer must carry
   */
  constructor(
    status: number,
    code: HttpErrorCode,
    message: string,
    fix: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.fix = fix;
    this.headers = headers;
  }

  /** The JSON body of this error. */
  body(): HttpErrorBody {
    return { error: { code: this.code, message: this.message, fix: this.fix } };
  }
}

/**
 * The {@link HttpError} for anything a route threw: itself, or `500 internal_error` for a bug
 * (logged; its message stays out of the answer).
 * @param error - what was thrown
 */
export function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  console.error("code-mode-mcp: a route failed:", error);
  return new HttpError(
    500,
    "internal_error",
    "The server failed while answering this request.",
    "Retry; if it keeps failing, the server's log says why (wrangler tail, or the npm start output).",
  );
}

/**
 * Whether the answer should be the HTML page: a GET navigation from a browser (`Accept` lists
 * `text/html`), or a route that only browsers use.
 * @param request - the refused request
 * @param browserRoute - the route is a page (the OAuth consent page)
 */
export function wantsHtml(request: Request, browserRoute = false): boolean {
  if (browserRoute) return true;
  return request.method === "GET" && /\btext\/html\b/.test(request.headers.get("accept") ?? "");
}

/**
 * The one renderer of product route errors.
 * @param error - what a route threw (anything; see {@link asHttpError})
 * @param html - render the HTML page instead of the JSON body (see {@link wantsHtml})
 */
export function renderHttpError(error: unknown, html = false): Response {
  const e = asHttpError(error);
  if (!html) return Response.json(e.body(), { status: e.status, headers: e.headers });
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(e.message)}</title></head><body style="font:15px system-ui;max-width:36rem;margin:3rem auto">
<h1 style="font-size:1.2rem">${esc(e.message)}</h1>
<p>Fix: ${esc(e.fix)}</p>
<p style="color:#666">HTTP ${e.status} · <code>${e.code}</code></p>
</body></html>`;
  return new Response(page, {
    status: e.status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "x-frame-options": "DENY",
      ...e.headers,
    },
  });
}

/** Escapes text for HTML. */
function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}
