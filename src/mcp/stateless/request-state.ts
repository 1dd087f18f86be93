/**
 * Sealing of the multi-round-trip `requestState`: the handler's one key option becomes the
 * SDK's HMAC codec, bound by default to the method and the caller (user, else client).
 */
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { callerIdentity } from "../common/caller-identity";

/** The `requestState` option of `createMcpHandler`. */
export interface RequestStateOptions {
  /**
   * The HMAC key, at least 32 bytes. Every isolate that may receive a later round needs the
   * same key, so load it from a secret (for example `env.MCP_STATE_KEY` via
   * `import { env } from "cloudflare:workers"`), never generate it per isolate.
   */
  key: string | Uint8Array;
  /** How long a sealed state stays valid, in seconds. Default 600. */
  ttlSeconds?: number;
  /**
   * What a state is bound to: a state minted under one value is rejected under another.
   * Default: the request method plus the caller's identity (the signed-in user, else the
   * authenticated `clientId`), so one user's state cannot be replayed by another user (of the
   * same client too) or against another method.
   */
  bind?: (ctx: ServerContext) => string;
}

/**
 * Builds the sealing codec for a handler.
 *
 * Security defaults: signed with HMAC-SHA256, expires after ten minutes, bound to method and
 * caller (`callerIdentity`: the user, else the client). A modified, expired or rebound state is answered with JSON-RPC `-32602`
 * ("Invalid or expired requestState") before the handler runs.
 *
 * Does not do: encryption. The client can read the payload; seal only values that are safe
 * to disclose to it (ids, prices, choices), never tokens or props.
 *
 * @param options - key, lifetime and binding
 * @returns the codec: `mint(payload, ctx)` in handlers, `verify` installed on each server
 * @throws RangeError (from the SDK's codec) when the key is shorter than 32 bytes or
 *   `ttlSeconds` is not a finite number
 */
export function createRequestStateSealer<T = unknown>(
  options: RequestStateOptions,
): RequestStateCodec<T> {
  return createRequestStateCodec<T>({
    key: options.key,
    ...(options.ttlSeconds !== undefined && { ttlSeconds: options.ttlSeconds }),
    bind: options.bind ?? defaultBind,
  });
}

function defaultBind(ctx: ServerContext): string {
  return `${ctx.mcpReq.method}\0${callerIdentity(ctx.http?.authInfo)}`;
}
