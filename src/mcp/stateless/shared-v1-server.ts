/**
 * The deprecated form `createMcpHandler(server)` with one SDK v1 server instance, as older
 * `agents` code and documentation write it. One v1 instance can be connected to one transport
 * at a time (its `connect` throws "Already connected" otherwise), while the stateless handler
 * connects the server it serves to a fresh transport per request. So the instance is lent to
 * one request at a time: each request gets a lease whose `connect` waits its turn and whose
 * `close` (which the SDK calls when the response is complete, cancelled or aborted) hands the
 * instance to the next. Requests to one instance are therefore served one after another;
 * a factory (`createMcpHandler(() => createServer())`) serves them in parallel.
 */
// Types only: a value import of the v1 SDK would put it (and its ajv) in every Worker that uses
// createMcpHandler; the fresh-project test (test/package/) checks that an SDK v2 Worker does not.
import type { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServerFactory } from "./handler-types";
import { isSdkV2Server, protocolOf, type SdkV1ServerLike } from "../common/server-kind";
import { failFastServerToClientRequests } from "./server-instance-checks";

/** An SDK v1 server instance (`McpServer` or low-level `Server` from `@modelcontextprotocol/sdk`). */
export type SdkV1Server = V1McpServer | V1Server;

/**
 * Whether `value` is an SDK v1 server instance: a server object (it connects and closes) that is
 * not from SDK v2. Told apart by shape, not `instanceof`, so the v1 SDK is not bundled.
 * @param value - what was passed where a factory belongs
 */
export function isSdkV1ServerInstance(value: unknown): value is SdkV1Server {
  if (typeof value !== "object" || value === null || isSdkV2Server(value)) return false;
  const candidate = value as Partial<Record<"connect" | "close", unknown>>;
  return typeof candidate.connect === "function" && typeof candidate.close === "function";
}

/** The one warning a handler built over an instance prints, when it is created. */
export const SHARED_V1_WARNING =
  "createMcpHandler(server) with an SDK v1 server instance is deprecated: the instance serves one request at a time " +
  "(requests to it queue) and speaks 2025-era MCP only. Pass a factory that builds a server per request instead: " +
  "createMcpHandler(() => createServer()), ideally with an SDK v2 McpServer from @modelcontextprotocol/server.";

/** Whether this isolate printed {@link SHARED_V1_WARNING} (once per isolate, as `agents` does). */
let warned = false;

/** Marks the per-request lease objects, so the handler does not warn again for each one. */
const LEASES = new WeakSet<object>();

/**
 * Whether a factory's product is a lease of a shared instance (already warned about).
 * @param product - what the factory returned
 */
export function isSharedV1Lease(product: unknown): boolean {
  return typeof product === "object" && product !== null && LEASES.has(product);
}

/**
 * A factory lending `server` to one request at a time. Prints {@link SHARED_V1_WARNING} once per
 * isolate.
 * @param server - the SDK v1 instance the application built once
 */
export function sharedV1Factory(server: SdkV1Server): McpServerFactory {
  // Once per isolate: Workers that build the handler per request would otherwise warn per request.
  if (!warned) console.warn(SHARED_V1_WARNING);
  warned = true;
  // Push requests on the instance itself fail at once (the answer could never come back):
  // patched once here, not per request, so wrappers do not pile up on the shared object.
  failFastServerToClientRequests(server);
  let turn: Promise<void> = Promise.resolve();
  return () => {
    let release: (() => void) | undefined;
    const lease: SdkV1ServerLike = {
      connect: async (transport) => {
        const previous = turn;
        let free!: () => void;
        turn = new Promise<void>((resolve) => (free = resolve));
        let released = false;
        release = () => {
          if (released) return;
          released = true;
          free();
        };
        await previous;
        try {
          await server.connect(transport as never);
        } catch (error) {
          release();
          throw error;
        }
      },
      close: async () => {
        try {
          // The SDK closes the transport first; closing the instance again is a no-op then,
          // and otherwise detaches it so the next request can connect.
          if (protocolOf(server).transport !== undefined) await server.close();
        } finally {
          release?.();
        }
      },
    };
    LEASES.add(lease);
    return lease;
  };
}
