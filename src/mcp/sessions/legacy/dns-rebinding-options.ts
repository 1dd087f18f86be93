/**
 * SDK v1's DNS-rebinding options on the Worker transport, honoured with SDK v1's semantics so
 * code ported from agents (whose WorkerTransport passes them to the SDK) keeps its protection.
 * They apply in addition to this library's own Origin/Host guards (`allowedHostnames`,
 * `allowedOriginHostnames` on the handlers), which are on by default.
 */
import { jsonRpcError, PROTOCOL_CODES } from "../../../errors";

/** The SDK v1 transport options for DNS-rebinding protection. */
export interface DnsRebindingOptions {
  /**
   * Turns on the exact `Host` / `Origin` checks below (SDK v1 semantics: without it the two
   * lists have no effect, and a warning says so once).
   */
  enableDnsRebindingProtection?: boolean;
  /** Exact `Host` header values accepted (with port, e.g. `"localhost:8787"`). */
  allowedHosts?: string[];
  /** Exact `Origin` values accepted when a request carries one (e.g. `"https://app.example"`). */
  allowedOrigins?: string[];
}

/**
 * Warns once when the lists are set without `enableDnsRebindingProtection: true`, where SDK v1
 * (and so this transport) ignores them.
 *
 * @param options - the transport options
 */
export function warnIfInactive(options: DnsRebindingOptions): void {
  if (options.enableDnsRebindingProtection === true) return;
  const set = (["allowedHosts", "allowedOrigins"] as const).filter(
    (name) => (options[name]?.length ?? 0) > 0,
  );
  if (set.length === 0) return;
  console.warn(
    `WorkerTransport: ${set.join(" and ")} ha${set.length === 1 ? "s" : "ve"} no effect without ` +
      "`enableDnsRebindingProtection: true` (SDK v1 semantics). Set it to enforce the list, or use " +
      "the handler's `allowedHostnames` / `allowedOriginHostnames` (always enforced).",
  );
}

/**
 * Applies the SDK v1 checks when `enableDnsRebindingProtection` is on: a `Host` not in
 * `allowedHosts`, or a present `Origin` not in `allowedOrigins`, gets `403`.
 *
 * @param request - the incoming request
 * @param options - the transport options
 * @returns the `403` response, or `undefined` to continue
 */
export function checkDnsRebinding(
  request: Request,
  options: DnsRebindingOptions,
): Response | undefined {
  if (options.enableDnsRebindingProtection !== true) return undefined;
  const { allowedHosts, allowedOrigins } = options;
  if (allowedHosts !== undefined && allowedHosts.length > 0) {
    // A Request built in-process may lack Host; its URL is then the only authority.
    const host = request.headers.get("host") ?? new URL(request.url).host;
    if (!allowedHosts.includes(host)) {
      return jsonRpcError(
        403,
        PROTOCOL_CODES.serverError,
        `Invalid Host header: ${host} (not in allowedHosts)`,
      );
    }
  }
  const origin = request.headers.get("origin");
  if (allowedOrigins !== undefined && allowedOrigins.length > 0 && origin !== null) {
    if (!allowedOrigins.includes(origin)) {
      return jsonRpcError(
        403,
        PROTOCOL_CODES.serverError,
        `Invalid Origin header: ${origin} (not in allowedOrigins)`,
      );
    }
  }
  return undefined;
}
