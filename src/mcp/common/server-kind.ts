/**
 * Which server a factory or an agent handed us: the SDK v2 / v1 server type, the v2 check,
 * and the low-level protocol object both hosting rooms (stateless and sessions) reach into.
 */
import { McpServer, Server } from "@modelcontextprotocol/server";

/**
 * The minimum this module relies on from an SDK v1 `McpServer` or `Server`. Typed
 * structurally so the v1 SDK is not bundled into Workers that never use it.
 */
export interface SdkV1ServerLike {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
}

/** A server a factory may return: SDK v2 `McpServer` / `Server`, or (deprecated) SDK v1. */
export type AnyMcpServer = McpServer | Server | SdkV1ServerLike;

/**
 * Whether `server` comes from SDK v2 (`@modelcontextprotocol/server`).
 *
 * @param server - a factory's product
 * @returns `true` for a v2 `McpServer` or `Server`
 */
export function isSdkV2Server(server: unknown): server is McpServer | Server {
  return server instanceof McpServer || server instanceof Server;
}

/**
 * The low-level protocol object of a server (v1 or v2 `McpServer.server`, or the server itself).
 *
 * @param server - a factory's product
 * @returns the object that owns `transport`, `connect` and the push request methods
 */
export function protocolOf(server: AnyMcpServer): Record<string, unknown> {
  const inner = (server as { server?: unknown }).server;
  return (typeof inner === "object" && inner !== null ? inner : server) as Record<string, unknown>;
}
