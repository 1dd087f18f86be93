/**
 * Browser requests from another site, refused on the app's own routes (`/api/search`,
 * `/api/runs`, `/api/skills`, `/demo-api`). A page on any site the user opens can send "simple"
 * requests (a GET, or a POST with a `text/plain` body and no custom header: no CORS preflight)
 * to a server on the user's machine, and the local server answers without a key by default. The
 * page cannot read the answer, but the request is carried out: a page imported a skill into the
 * user's server (code and instructions later runs would find), ran programs through
 * `/api/search` and wrote to the demo API. The MCP routes refuse a foreign `Origin` themselves
 * (src/mcp/common/guards.ts); these routes had no such check.
 *
 * The rule: a request without `Origin` (not a browser's cross-site request: command-line
 * clients, the CLI's `skills import`, a same-origin GET) passes; a browser's `Origin` passes when
 * its host is the request's own host (the server's pages: the status page's search form and
 * consoles; the `Host` was already checked against `ALLOWED_HOSTNAMES`, so a DNS-rebinding page
 * never gets here), or when both name this machine (a local tool on another port, as the MCP
 * routes allow). Everything else (another site, another `*.workers.dev` subdomain, the opaque
 * `null` of a sandboxed frame or a `file:` page) gets `403 cross_site_request` before anything
 * runs.
 *
 * Does not do: authenticate (a key or OAuth token still decides who may use a route).
 */
import { isLoopbackHostname } from "./anonymous-guard";
import { requestHostname } from "./config/allowed-hosts";
import { HttpError } from "./errors/http-error";

/**
 * Refuses a browser request that another site's page sent.
 * @param request - a request to one of the app's own (non-MCP) routes
 * @throws HttpError `403 cross_site_request` naming the origin
 */
export function refuseCrossSite(request: Request): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  const own = requestHostname(request);
  const from = originHostname(origin);
  if (from !== undefined && (from === own || (isLoopbackHostname(from) && isLoopbackHostname(own))))
    return;
  throw new HttpError(
    403,
    "cross_site_request",
    `A browser page of another site (Origin ${JSON.stringify(origin.slice(0, 200))}) may not use this route: it would act on this server with your access.`,
    "Use the server's own status page, or a client that is not a browser page of another site (MCP clients, curl, the CLI).",
  );
}

/** The hostname of an http(s) origin as `requestHostname` spells one; undefined for anything else. */
function originHostname(origin: string): string | undefined {
  if (!/^https?:\/\/[^/]+$/i.test(origin.trim())) return undefined;
  try {
    // Lower case, no port, an IPv6 address in brackets: as requestHostname spells a Host.
    return new URL(origin.trim()).hostname;
  } catch {
    return undefined;
  }
}
