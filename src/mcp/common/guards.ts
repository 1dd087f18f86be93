/**
 * Origin and Host guards against DNS rebinding and cross-site browser requests, shared by
 * every MCP endpoint of this library (stateless handler and `McpAgent.serve`).
 */
import {
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from "@modelcontextprotocol/server";
import { PROTOCOL_CODES, jsonRpcError } from "../../errors";
import { urlParts } from "./request-url";

/** Which `Host` and `Origin` values an endpoint accepts. */
export interface GuardOptions {
  /**
   * Accepted `Host` hostnames (no port). When omitted, localhost endpoints accept only
   * localhost-class hosts and `*.workers.dev` endpoints only their own hostname; custom
   * domains are left to Cloudflare's routing (a request only reaches the Worker through a
   * route that names the domain).
   */
  allowedHostnames?: string[];
  /**
   * Accepted hostnames of a present browser `Origin` (scheme and port ignored). When omitted:
   * localhost-class hostnames, the endpoint's own hostname when it is a `*.workers.dev` name,
   * and the hostname of a concrete `corsOrigin`. `"*"` disables the Origin check: only for use
   * behind trusted middleware that already checks Origin.
   */
  allowedOriginHostnames?: string[] | "*";
  /** The configured `Access-Control-Allow-Origin`; a concrete http(s) origin joins the default allowlist. */
  corsOrigin?: string;
}

/**
 * Checks a request's `Host` and `Origin` headers and returns a `403` JSON-RPC error response
 * when either is not allowed, or `undefined` when the request may proceed.
 *
 * Security defaults: every present `Origin` is checked; malformed values, the opaque `null`
 * origin and non-http(s) origins (`file://`, extensions) are refused even if listed. The
 * default allowlist never contains a custom domain's own hostname: a DNS-rebinding page
 * sends its own hostname as both Origin and Host, so "same host" proves nothing; name the
 * domain in `allowedOriginHostnames` (or a concrete `corsOptions.origin`) instead.
 *
 * Does not do: authentication. Requests without `Origin` (non-browser clients) pass, and
 * CORS headers grant nothing. Tokens are checked by the auth layer in front of the handler.
 *
 * @param request - the incoming request
 * @param options - allowlists; see {@link GuardOptions}
 * @returns the rejection response, or `undefined` to continue
 */
export function guardRequest(request: Request, options: GuardOptions = {}): Response | undefined {
  const url = urlParts(request.url);
  const endpoint = url.hostname;
  const localhost = localhostAllowedHostnames();
  const isLocal = localhost.includes(endpoint);
  const isWorkersDev = endpoint.endsWith(".workers.dev");

  const hosts =
    options.allowedHostnames ?? (isLocal ? localhost : isWorkersDev ? [endpoint] : undefined);
  if (hosts !== undefined) {
    // Incoming Worker requests always carry Host; a Request built in-process (a test, or
    // another handler calling `.fetch`) may not, and then its URL is the only authority.
    const host = validateHostHeader(request.headers.get("host") ?? url.host, hosts);
    if (!host.ok) return forbidden(host.message);
  }

  if (options.allowedOriginHostnames === "*") return undefined;
  const origin = request.headers.get("origin");
  if (origin === null || origin === "") return undefined;
  // The SDK validator lets `<scheme>://*` entries admit extension origins; the contract
  // here is stricter: only web origins may ever talk to the endpoint from a browser.
  if (!/^https?:\/\//i.test(origin)) return forbidden(`Invalid Origin header: ${origin}`);
  const allowed =
    options.allowedOriginHostnames ?? defaultOriginHostnames(endpoint, isWorkersDev, options);
  const result = validateOriginHeader(origin, allowed);
  return result.ok ? undefined : forbidden(result.message);
}

/** The default Origin allowlist described on {@link GuardOptions.allowedOriginHostnames}. */
function defaultOriginHostnames(
  endpoint: string,
  isWorkersDev: boolean,
  options: GuardOptions,
): string[] {
  const allowed = new Set(localhostAllowedHostnames());
  if (isWorkersDev) allowed.add(endpoint);
  const corsHost = concreteOriginHostname(options.corsOrigin);
  if (corsHost !== undefined) allowed.add(corsHost);
  return [...allowed];
}

/** The hostname of a concrete http(s) origin; `*`, `null` and junk yield `undefined`. */
function concreteOriginHostname(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  try {
    const url = new URL(origin);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "") {
      return url.hostname;
    }
  } catch {
    // A wildcard or malformed CORS value must not widen the allowlist.
  }
  return undefined;
}

/** A `403` JSON-RPC error body, the shape the SDK's own validation helpers answer with. */
function forbidden(message: string): Response {
  return jsonRpcError(403, PROTOCOL_CODES.serverError, `Forbidden: ${message}`);
}
