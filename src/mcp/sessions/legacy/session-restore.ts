/**
 * How a Worker transport's session outlives its host: which id a new session gets, where a
 * later request finds the session's record (storage, or the self-describing id itself), and
 * replaying that record's `initialize` into a fresh SDK transport.
 *
 * Kept apart from worker-transport.ts because it is the one part that decides between the
 * three ways a session can be remembered (`storage`, a caller's `sessionIdGenerator`, or the
 * id carrying the record, see session-id-record.ts); the transport only asks and replays.
 */
import type { JsonRpcMessage } from "./initialize-record";
import type { SdkTransport } from "./sdk-transport";
import { recordFromSessionId, sessionIdWithRecord } from "./session-id-record";
import type { SessionRecord, WorkerTransportOptions } from "./worker-transport-options";

/** The options that decide how a session is remembered. */
type RestoreOptions = Pick<WorkerTransportOptions, "storage" | "sessionIdGenerator">;

/**
 * The record of the session a request names, if it can be restored: the stored one with
 * `storage`; without storage or a custom generator, the one the id itself carries.
 *
 * @param options - the transport's options
 * @param sessionId - the `Mcp-Session-Id` of the triggering request, or null
 * @returns the record, or undefined when there is no session to restore
 */
export async function findSessionRecord(
  options: RestoreOptions,
  sessionId: string | null,
): Promise<SessionRecord | undefined> {
  const { storage, sessionIdGenerator } = options;
  if (storage !== undefined) return (await storage.get()) ?? undefined;
  if (sessionIdGenerator !== undefined || sessionId === null) return undefined;
  const initialize = recordFromSessionId(sessionId);
  return initialize === undefined ? undefined : { sessionId, initialize };
}

/**
 * The id the SDK transport gives its session: the restored record's, else the caller's
 * generator's, else (without storage) one carrying the client's `initialize`, else a UUID.
 *
 * @param options - the transport's options
 * @param record - the session being restored, if any
 * @param initialize - the `initialize` request being served, if any
 * @returns the session id
 */
export function issueSessionId(
  options: RestoreOptions,
  record: SessionRecord | undefined,
  initialize: JsonRpcMessage | undefined,
): string {
  // Without storage or a custom generator, the id itself carries the initialize record.
  const selfDescribing = options.storage === undefined && options.sessionIdGenerator === undefined;
  return (
    record?.sessionId ??
    options.sessionIdGenerator?.() ??
    (selfDescribing && initialize !== undefined
      ? sessionIdWithRecord(initialize)
      : crypto.randomUUID())
  );
}

/**
 * Replays a stored `initialize` into a freshly connected transport. This restores the session
 * id on the transport and the client's capabilities and identity on the server, through public
 * entry points only.
 *
 * @param transport - the SDK transport, connected to its server
 * @param record - the session to restore
 * @returns the handshake's response; the caller reads it to the end
 */
export function replayInitialize(
  transport: SdkTransport,
  record: SessionRecord,
): Promise<Response> {
  return transport.handleRequest(
    new Request("https://session.restore/", {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
    }),
    { parsedBody: record.initialize },
  );
}
