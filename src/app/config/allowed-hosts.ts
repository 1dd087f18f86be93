/**
 * The product's `Host` allowlist (`ALLOWED_HOSTNAMES`), checked in front of every route.
 *
 * Why from configuration: a check that derives the allowed name from the request (its URL)
 * cannot fail, because locally the URL's host *is* the `Host` header. A DNS-rebinding page at
 * `evil.example` that resolves to 127.0.0.1 sends `Host: evil.example`; only a list that does not
 * come from the request refuses it.
 *
 * Security defaults: without the setting, localhost names (for `npm start`) and `*.workers.dev`
 * names (a deployment's own subdomain; DNS for workers.dev is Cloudflare's, so it cannot be
 * rebound to a local address) are accepted. A custom domain must be named.
 *
 * Does not do: check `Origin` (the MCP handlers do that) or authenticate.
 */
import { HttpError } from "../errors/http-error";
import {
  DEFAULT_ALLOWED_HOSTNAMES,
  hostnameAllowed,
  hostnameOf,
  unknownHostRefusal,
} from "./host-names.mjs";

// The rule itself lives in host-names.mjs, which the local server's front applies too.
export { DEFAULT_ALLOWED_HOSTNAMES, hostnameAllowed };

const HOSTNAME = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/**
 * Parses `ALLOWED_HOSTNAMES`: hostnames separated by commas or spaces, each a name (`mcp.example.com`),
 * a `*.`-prefixed wildcard for subdomains (`*.example.com`), an IPv4 address or a bracketed IPv6.
 * @param value - the setting, if set
 * @returns the list, or the configuration problem naming the entries that are not hostnames
 */
export function parseAllowedHostnames(
  value: string | undefined,
):
  | { ok: true; hostnames: string[] }
  | { ok: false; problem: { setting: "ALLOWED_HOSTNAMES"; message: string; fix: string } } {
  if (value === undefined || value.trim() === "")
    return { ok: true, hostnames: [...DEFAULT_ALLOWED_HOSTNAMES] };
  const entries = value
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "");
  const invalid = entries.filter((entry) => !HOSTNAME.test(entry) && !IPV6.test(entry));
  if (invalid.length === 0) return { ok: true, hostnames: entries };
  return {
    ok: false,
    problem: {
      setting: "ALLOWED_HOSTNAMES",
      message: `ALLOWED_HOSTNAMES has entries that are not host names: ${invalid.join(", ")}.`,
      fix: "List host names separated by commas, e.g. ALLOWED_HOSTNAMES=mcp.example.com,*.example.org (no scheme, port or path).",
    },
  };
}

/**
 * The hostname a request was sent to: its `Host` header without the port. A request built
 * in-process (a test, another handler) may have no `Host`; then its URL is the only authority.
 * @param request - the incoming request
 */
export function requestHostname(request: Request): string {
  return hostnameOf(request.headers.get("host") ?? new URL(request.url).host);
}

/**
 * Checks a request's `Host` against the list.
 * @param request - the incoming request
 * @param allowed - the configured list
 * @throws HttpError `403 forbidden_host` naming the host and the setting
 */
export function refuseUnknownHost(request: Request, allowed: readonly string[]): void {
  const hostname = requestHostname(request);
  if (hostnameAllowed(hostname, allowed)) return;
  const refusal = unknownHostRefusal(hostname);
  throw new HttpError(refusal.status, refusal.code, refusal.message, refusal.fix);
}
