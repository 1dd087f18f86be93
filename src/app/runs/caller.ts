/**
 * Who ran a program, as the run history names it: the OAuth user (`oauth:<user id>`), the API key
 * holder (`api-key`: every holder of the key is the same caller), a caller whose own bearer token
 * is forwarded upstream (`caller-token`), or `anonymous`.
 *
 * Security defaults: never a token or key, not even a hash of one (a forwarded token is a
 * credential for the upstream API).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AppConfig } from "../config/config";

/**
 * Names the caller of a run.
 * @param config - the checked configuration (which protection is on)
 * @param authInfo - the identity the MCP handler got, if any
 */
export function callerOf(config: AppConfig, authInfo: AuthInfo | undefined): string {
  if (config.oauth) {
    const props = authInfo?.extra?.["props"] as { userId?: unknown } | undefined;
    const user = typeof props?.userId === "string" ? props.userId : authInfo?.clientId;
    return user ? `oauth:${user.slice(0, 200)}` : "oauth:unknown";
  }
  if (config.apiKey) return "api-key";
  if (authInfo?.token) return "caller-token";
  return "anonymous";
}
