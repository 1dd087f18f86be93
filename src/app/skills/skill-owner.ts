/**
 * Whose skills a request uses (docs/skills.md, "Whose skills"): the OAuth user
 * (`oauth:<user id>`); with `MCP_API_KEY`, the key (`key:<hash>`: a new key starts a new set);
 * with `FORWARD_CALLER_TOKEN`, each caller's own token (`token:<hash>`); on an open server one
 * shared set (`open`). The owner key names the principal's Durable Object.
 *
 * Security defaults: never a key or token, only the first 32 hex digits of its SHA-256; an OAuth
 * request without a user (which the provider does not let through) and a forwarded-token
 * server's request without a token get no skills rather than someone else's.
 */
import { createHash } from "node:crypto";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AppConfig } from "../config/config";
import { STATUS_VIEWER } from "../self-client";

/** How the owner key of a forwarded token starts (durable-skill-store.ts gates them). */
export const TOKEN_OWNER_PREFIX = "token:";

/** The owner key of the open server's one shared set. */
export const OPEN_OWNER = "open";

/**
 * The owner key of the caller, or undefined when the caller has no skills.
 * @param config - the checked configuration (which protection is on)
 * @param authInfo - the identity the MCP handler or API route got, if any
 */
export function skillOwner(config: AppConfig, authInfo: AuthInfo | undefined): string | undefined {
  if (authInfo === STATUS_VIEWER) return undefined;
  if (config.oauth) {
    const props = authInfo?.extra?.["props"] as { userId?: unknown } | undefined;
    const user = typeof props?.userId === "string" ? props.userId : authInfo?.clientId;
    return user ? `oauth:${user.slice(0, 200)}` : undefined;
  }
  if (config.apiKey) return `key:${hash(config.apiKey)}`;
  if (config.api.kind === "http" && config.api.forwardCallerToken)
    return authInfo?.token ? `${TOKEN_OWNER_PREFIX}${hash(authInfo.token)}` : undefined;
  return OPEN_OWNER;
}

function hash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 32);
}
