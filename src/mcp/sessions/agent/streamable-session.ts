/**
 * Starts the Streamable HTTP side of an agent object: the `WorkerTransport` serving its one
 * session, restored from the object's storage after a wake-up.
 */
import { DurableObjectEventStore } from "../event-store";
import { isConnected, WorkerTransport } from "../legacy/worker-transport";
import type { AnyMcpServer } from "../../common/server-kind";
import { attachStandaloneStream } from "./standalone-stream";

/** Storage key of a Streamable HTTP session's record (`{ sessionId, initialize }`). */
export const SESSION_KEY = "mcp:session";

/** What the transport needs from its agent. */
export interface StreamableHost {
  ctx: DurableObjectState;
  server: AnyMcpServer;
  keepAliveMs: number;
  retryIntervalMs: number | undefined;
}

/** A started session: its transport and the event store both it and the standalone stream use. */
export interface StreamableSession {
  transport: WorkerTransport;
  eventStore: DurableObjectEventStore;
}

/**
 * Builds and starts the session's transport (restoring a stored session). On failure the
 * server is disconnected again, so a retry can connect it to a fresh transport.
 *
 * @param host - the agent object
 * @returns the started transport
 */
export async function startStreamableSession(host: StreamableHost): Promise<StreamableSession> {
  const { ctx, server } = host;
  const kv = ctx.storage.kv;
  const eventStore = new DurableObjectEventStore(ctx.storage);
  const transport = new WorkerTransport(server, {
    sessionIdGenerator: () => ctx.id.toString(),
    eventStore,
    storage: {
      get: () => kv.get(SESSION_KEY),
      set: (record) => kv.put(SESSION_KEY, record),
    },
    keepAliveMs: host.keepAliveMs,
    ...(host.retryIntervalMs !== undefined && { retryInterval: host.retryIntervalMs }),
  });
  try {
    await transport.start();
  } catch (error) {
    if (isConnected(server)) await server.close().catch(() => {});
    throw error;
  }
  // After a wake-up: the client's standalone stream is still open through its socket.
  attachStandaloneStream(ctx, server);
  return { transport, eventStore };
}
