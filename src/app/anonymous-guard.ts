/**
 * No anonymous callers on a deployed Worker: with no caller check configured (`MCP_API_KEY`,
 * `OAUTH=on`, or `FORWARD_CALLER_TOKEN=on` with no `API_TOKEN` or `UPSTREAM_MCP_AUTH`, where the
 * API checks each caller's own token), the
 * app routes (`/mcp`, `/mcp/code`, `/api/search`, `/api/runs`, `/demo-api`) refuse requests
 * unless `ALLOW_ANONYMOUS=on` says the server is meant to be open. Those routes run code with the
 * server's credential (`API_TOKEN`, `UPSTREAM_MCP_AUTH`) or write to the demo's data, so an open
 * deployment lets whoever learns its URL act as its owner.
 *
 * How "deployed" is told from local: by the host name the request was sent to. A request that
 * names a loopback host (`localhost`, `127.x.x.x`, `[::1]`) reached a server on this machine
 * (`npm start`, `serve`, `wrangler dev`): that is the offline demo's default, and it keeps
 * working with no key. A deployed Worker is only ever reached under its route's name (a
 * `*.workers.dev` subdomain or a custom domain): Cloudflare routes by host name and no route can
 * be a loopback name, so no request to a deployment passes as local. A setting the local launcher
 * passes was the other choice; it was not taken, because a setting can be copied into a deployed
 * Worker's vars, and then it would open the deployment silently. A local server reached under
 * another name (a LAN address, a tunnel) counts as deployed: it refuses, and says how to open it.
 * So does one relayed to a loopback name by a proxy that says so ({@link isLocalRequest}).
 *
 * Does not do: authenticate (api-key.ts and oauth/ do), or guard `/health` and the status page,
 * which show no secrets and run nothing.
 */
import type { AppConfig } from "./config/config";
import { requestHostname } from "./config/allowed-hosts";
import { HttpError } from "./errors/http-error";

/**
 * Whether `hostname` names this machine.
 * @param hostname - from `requestHostname` (lowercase, no port, IPv6 in brackets)
 */
export function isLoopbackHostname(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Headers a proxy or tunnel adds for the client it relays (`CF-Connecting-IP` is read apart). */
const RELAY_HEADERS = [
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-real-ip",
  "true-client-ip",
];

/**
 * Whether an address names this machine (`127.x`, `::1`, `::ffff:127.x`).
 * @param address - a client address as `CF-Connecting-IP` carries it
 */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.trim().toLowerCase();
  return ip === "::1" || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/**
 * Whether a request came from this machine itself: sent to a loopback name, with no sign of a
 * relay. A tunnel or reverse proxy that rewrites `Host` to `localhost` (`ngrok
 * --host-header=rewrite`, a proxy to `http://127.0.0.1:8787`) made a remote caller look local;
 * most add `X-Forwarded-For` or `Forwarded`, and the local front, `wrangler dev` and Cloudflare
 * set `CF-Connecting-IP` to the client's real address. A relay that adds none of them (nginx's
 * default `proxy_pass`) cannot be told from a local client: docs/configuration.md says so.
 * @param request - the incoming request
 */
export function isLocalRequest(request: Request): boolean {
  if (!isLoopbackHostname(requestHostname(request))) return false;
  if (RELAY_HEADERS.some((name) => request.headers.has(name))) return false;
  const client = request.headers.get("cf-connecting-ip");
  return client === null || isLoopbackAddress(client);
}

/**
 * Whether `FORWARD_CALLER_TOKEN=on` is a caller check here: only when the Worker sends no
 * credential of its own. A caller who sends no token gets `API_TOKEN` in its place
 * (api-request-handler.ts), and `/mcp/code` always sends `UPSTREAM_MCP_AUTH`, so beside either
 * one forwarding checks nobody.
 * @param config - the checked configuration
 */
function forwardsOnlyCallerTokens(config: AppConfig): boolean {
  if (config.api.kind !== "http" || !config.api.forwardCallerToken) return false;
  if (config.api.credential) return false;
  const servers = config.upstream.kind === "url" ? config.upstream.servers : [];
  return servers.every((server) => Object.keys(server.headers).length === 0);
}

/**
 * Refuses a request to an app route of a deployed Worker that has no caller check.
 * @param request - the incoming request (preflights are the caller's business: not refused)
 * @param config - the checked configuration
 * @throws HttpError `403 no_caller_check` naming the key to set, the header to send and the opt-out
 */
export function refuseAnonymous(request: Request, config: AppConfig): void {
  if (request.method === "OPTIONS") return;
  if (config.apiKey !== undefined || config.oauth || config.allowAnonymous) return;
  if (forwardsOnlyCallerTokens(config)) return;
  if (isLocalRequest(request)) return;
  throw new HttpError(
    403,
    "no_caller_check",
    "This server is reachable from other machines and has no caller check (MCP_API_KEY or OAUTH=on), so it serves no one: it would run requests with its credentials for anyone who finds its URL.",
    "Set a key (npx wrangler secret put MCP_API_KEY) and send it as `Authorization: Bearer <MCP_API_KEY>`, or turn on OAUTH=on; to serve anyone without a check, set ALLOW_ANONYMOUS=on.",
  );
}
