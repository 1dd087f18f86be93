/**
 * `WorkerTransport`: one 2025-era MCP session served over the MCP SDK's own web-standard
 * sessionful Streamable HTTP transport, plus what a Worker or Durable Object needs around it:
 * the session survives the host being evicted (it is restored from storage by replaying the
 * stored `initialize` into a fresh server), resumed streams end after their final response,
 * and stored events are dropped once their stream is done.
 */
import { SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo } from "@modelcontextprotocol/server";
import type { AnyMcpServer } from "../../common/server-kind";
import { jsonRpcError, PROTOCOL_CODES } from "../../../errors";
import { refuseJsonShape } from "../../common/shape-refusal";
import { readCappedText } from "../../common/capped-text";
import { DurableObjectEventStore } from "../event-store";
import {
  negotiatedVersion,
  normalizeInitialize,
  withSessionVersion,
  type JsonRpcMessage,
} from "./initialize-record";
import { checkDnsRebinding, warnIfInactive } from "./dns-rebinding-options";
import { relateServerRequests } from "./related-requests";
import {
  aliasReusedIds,
  restoreIdsInJson,
  restoreIdsOnWrite,
  type AliasingTransport,
} from "./request-id-aliases";
import { CLIENT_CLOSED_REQUEST, refuseBeforeSession } from "./request-checks";
import { chainOnError, sdkTransportFor, type SdkTransport } from "./sdk-transport";
import { dropLateSends } from "./late-sends";
import { followStoredStream } from "./stream-follower";
import { releaseResumedStream } from "./stream-takeover";
import { findSessionRecord, issueSessionId, replayInitialize } from "./session-restore";
import { watchSseResponse } from "./sse-close-watcher";
import { DEFAULT_KEEP_ALIVE_MS, type WorkerTransportOptions } from "./worker-transport-options";
import { markCancels, markSessionEnded, relayCancels, sessionKeyPrefix } from "./cancel-relay";
import { cancelOwner } from "../../common/cancel-board";
import { callerIdentity } from "../../common/caller-identity";

export { isConnected } from "./sdk-transport";
export {
  DEFAULT_KEEP_ALIVE_MS,
  type SessionRecord,
  type SessionStorage,
  type WorkerEventStore,
  type WorkerTransportOptions,
} from "./worker-transport-options";

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/**
 * A sessionful Streamable HTTP endpoint for one server instance.
 *
 * Security defaults: session ids are random UUIDs (or your generator; without `storage` they
 * also carry the client's initialize record, see session-id-record.ts); requests with an
 * unknown id get `404`; requests that can never be served (aborted, unsupported protocol
 * version, `initialize` with a session id or without `protocolVersion`) are refused before
 * any session lookup; client capabilities are only what the client declared at `initialize`
 * (an empty `elicitation: {}` counts as form mode, as the spec says). A resume with
 * `Last-Event-ID` takes its stream over from a connection not yet seen to drop; concurrent
 * requests reusing a JSON-RPC id each get their own answer.
 *
 * Does not do: Origin/Host checks (beyond SDK v1's opt-in `enableDnsRebindingProtection`),
 * CORS or authentication (the caller does them first), and it serves one session: a second
 * `initialize` is refused by the SDK transport.
 */
export class WorkerTransport {
  readonly #server: AnyMcpServer;
  readonly #options: WorkerTransportOptions;
  #transport: SdkTransport | undefined;
  #starting: Promise<SdkTransport> | undefined;
  #pendingInitialize: JsonRpcMessage | undefined;
  /** The session's negotiated protocol version, once known. */
  #version: string | undefined;
  /** A failure while recording a new session (storage, `onsessioninitialized`). */
  #initFailure: { error: unknown } | undefined;
  /** Requests whose streams `closeSSEStream` ended: their late answers are dropped. */
  readonly #closedRequestIds = new Set<string | number>();

  /**
   * @param server - an SDK v1 or v2 server, not yet connected
   * @param options - transport options
   */
  constructor(server: AnyMcpServer, options: WorkerTransportOptions = {}) {
    this.#server = server;
    this.#options = options;
    warnIfInactive(options);
  }

  /** The session id once a client initialized (or the session was restored). */
  get sessionId(): string | undefined {
    return this.#transport?.sessionId;
  }

  /**
   * Connects the server and restores a stored session. Idempotent; concurrent callers share
   * one start. A failed start (e.g. a transient storage error) is not remembered: the next
   * call tries again.
   *
   * @param sessionId - the session id the triggering request carries; without `storage`, an
   *   id this library issued restores its session from the id itself
   * @returns resolves once the transport can serve requests
   */
  async start(sessionId?: string | null): Promise<void> {
    const starting = (this.#starting ??= this.#connect(sessionId ?? null));
    try {
      await starting;
    } catch (error) {
      if (this.#starting === starting) this.#starting = undefined;
      throw error;
    }
  }

  /**
   * Serves one HTTP request of the session (POST, GET or DELETE).
   *
   * @param incoming - the request (guards and auth already applied)
   * @param options - verified `authInfo` to hand to handlers; `parsedBody` when the caller
   *   already read the POST body (as SDK v1's transport accepts)
   * @returns the transport's response
   */
  async handleRequest(
    incoming: Request,
    options: { authInfo?: AuthInfo; parsedBody?: unknown } = {},
  ): Promise<Response> {
    // The client is gone: connecting, restoring or running a handler would be wasted work.
    if (incoming.signal.aborted) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    const rebinding = checkDnsRebinding(incoming, this.#options);
    if (rebinding !== undefined) return rebinding;
    const auth = options.authInfo === undefined ? {} : { authInfo: options.authInfo };
    const isPost = incoming.method.toUpperCase() === "POST";
    let parsed: unknown = options.parsedBody;
    if (isPost && parsed === undefined) {
      const limit = this.#options.maxRequestBodySize ?? DEFAULT_MAX_BODY;
      // In bytes as they arrive (common/capped-text.ts): none is held past the limit.
      const read = await readCappedText(incoming, limit);
      if ("tooLarge" in read) {
        return jsonRpcError(
          413,
          PROTOCOL_CODES.serverError,
          `Request body exceeds ${limit} bytes.`,
        );
      }
      if ("unreadable" in read) {
        return jsonRpcError(
          400,
          PROTOCOL_CODES.parseError,
          "Parse error: the request body could not be read",
        );
      }
      const { text } = read;
      // Its shape before its parse, as the stateless handler does (common/json-shape.ts): a
      // parse builds every value, and a client chooses how many.
      const refused = refuseJsonShape(text);
      if (refused !== undefined) return refused;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Let the SDK answer the parse error in its own words.
        await this.start(incoming.headers.get("mcp-session-id"));
        return this.#transport!.handleRequest(
          new Request(incoming, { method: "POST", body: text }),
          auth,
        );
      }
    }
    const refused = refuseBeforeSession(incoming, isPost ? parsed : undefined);
    if (refused !== undefined) return refused;
    const sessionId = incoming.headers.get("mcp-session-id");
    await this.start(sessionId);
    const initialize = isPost ? normalizeInitialize(parsed) : undefined;
    if (
      sessionId !== null &&
      initialize === undefined &&
      this.#transport!.sessionId === undefined
    ) {
      // No session here and none to restore: 404 tells the client to initialize again (the
      // SDK would answer 400 "not initialized", which clients treat as fatal).
      return jsonRpcError(
        404,
        PROTOCOL_CODES.sessionNotFound,
        "Session not found: initialize a new session.",
      );
    }
    const request = withSessionVersion(incoming, this.#version, SUPPORTED_PROTOCOL_VERSIONS);
    const transport = this.#transport!;
    // The session's key on the cancel board, for a request of the session this serves (a
    // cancel or a DELETE may reach another server than its request's: cancel-relay.ts).
    const session =
      sessionId !== null && sessionId === transport.sessionId
        ? await sessionKeyPrefix(sessionId)
        : undefined;
    if (!isPost) {
      if (incoming.method.toUpperCase() === "DELETE") {
        const deleted = await transport.handleRequest(request, auth);
        if (deleted.ok && session !== undefined) markSessionEnded(session);
        return deleted;
      }
      const store = this.#options.eventStore;
      const streamId = await releaseResumedStream(request, transport, store);
      const resumed = await transport.handleRequest(request, auth);
      // A resumed stream whose request runs in another server reads its events from the store.
      followStoredStream(request, streamId, transport as never, store, resumed);
      return this.#watch(resumed);
    }
    if (initialize !== undefined) this.#pendingInitialize = initialize;
    if (session !== undefined) markCancels(session, parsed);
    const { body, aliased } = aliasReusedIds(parsed, transport as AliasingTransport);
    const relay =
      session === undefined
        ? undefined
        : relayCancels(
            session,
            parsed,
            body,
            (message) =>
              (transport as { onmessage?: (message: unknown) => void }).onmessage?.(message),
            cancelOwner(
              callerIdentity(options.authInfo),
              incoming.headers.get("cf-connecting-ip") ?? "",
            ),
          );
    let sdkResponse: Response;
    try {
      sdkResponse = await transport.handleRequest(request, { ...auth, parsedBody: body });
    } catch (error) {
      relay?.stop();
      throw error;
    }
    const watched = this.#watch(sdkResponse);
    const response = relay === undefined ? watched : relay.answered(watched);
    const failure = this.#initFailure;
    if (failure !== undefined) {
      // The SDK already counts the session as initialized; start over so the client's next
      // initialize is served (not refused as "already initialized") and fail this request.
      this.#initFailure = undefined;
      this.#transport = undefined;
      this.#starting = undefined;
      await transport.close();
      throw failure.error;
    }
    return aliased ? restoreIdsInJson(response) : response;
  }

  /**
   * Closes the SSE stream carrying a request's response, as SDK v1's transport does: with an
   * event store the client reconnects with `Last-Event-ID` and receives the rest (polling
   * during long operations); without one, the response is lost, silently (as in agents: the
   * caller chose to end the stream, so `onerror` is not told the answer could not be sent).
   *
   * @param requestId - the JSON-RPC id of the client request
   */
  closeSSEStream(requestId: string | number): void {
    const transport = this.#transport;
    if (transport === undefined) return;
    const inFlight = (transport as AliasingTransport)._requestToStreamMapping;
    if (inFlight?.has(requestId) !== false) this.#closedRequestIds.add(requestId);
    transport.closeSSEStream?.(requestId);
  }

  /** Closes the standalone GET stream; with an event store the client resumes it. */
  closeStandaloneSSEStream(): void {
    this.#transport?.closeStandaloneSSEStream?.();
  }

  /** Closes the transport (open streams end). */
  async close(): Promise<void> {
    this.#closedRequestIds.clear();
    await this.#transport?.close();
  }

  async #connect(requestedId: string | null): Promise<SdkTransport> {
    const record = await findSessionRecord(this.#options, requestedId);
    const Transport = await sdkTransportFor(this.#server);
    let restoring = record !== undefined;
    const transport: SdkTransport = new Transport({
      sessionIdGenerator: () => issueSessionId(this.#options, record, this.#pendingInitialize),
      keepAliveMs: this.#options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      ...(this.#options.eventStore !== undefined && {
        eventStore: this.#options.eventStore,
      }),
      ...(this.#options.retryInterval !== undefined && {
        retryInterval: this.#options.retryInterval,
      }),
      ...(this.#options.enableJsonResponse !== undefined && {
        enableJsonResponse: this.#options.enableJsonResponse,
      }),
      onsessioninitialized: async (sessionId: string) => {
        if (restoring) return;
        const initialize = this.#pendingInitialize;
        this.#pendingInitialize = undefined;
        try {
          if (initialize !== undefined) {
            this.#version = negotiatedVersion(initialize, SUPPORTED_PROTOCOL_VERSIONS);
            await this.#options.storage?.set({ sessionId, initialize });
          }
          await this.#options.onsessioninitialized?.(sessionId);
        } catch (error) {
          this.#initFailure = { error };
          throw error;
        }
      },
      onsessionclosed: async (sessionId: string) => {
        await this.#options.onsessionclosed?.(sessionId);
      },
    });
    await (this.#server as { connect(t: unknown): Promise<void> }).connect(transport);
    if (this.#options.enableJsonResponse !== true) relateServerRequests(transport as never);
    restoreIdsOnWrite(transport as AliasingTransport);
    dropLateSends(transport as never, this.#closedRequestIds);
    chainOnError(transport, this.#options.onerror);
    this.#transport = transport;
    if (record !== undefined) {
      this.#version = negotiatedVersion(record.initialize, SUPPORTED_PROTOCOL_VERSIONS);
      // The stored handshake, replayed: the session is back (session-restore.ts).
      await this.#watch(await replayInitialize(transport, record)).arrayBuffer();
      restoring = false;
    }
    return transport;
  }

  #watch(response: Response): Response {
    const store = this.#options.eventStore;
    if (store?.deleteStream === undefined) return response;
    const pending = (this.#transport as { _requestToStreamMapping?: Map<unknown, string> })
      ._requestToStreamMapping;
    return watchSseResponse(response, {
      streamIdOf: (id) => DurableObjectEventStore.streamIdOf(id),
      // The SDK (1.32.2 and 2.4.0, pinned) keeps request → stream correlations here; when the
      // field is missing every stream counts as done after a response, the common case.
      hasPendingRequests: (streamId) =>
        pending !== undefined && [...pending.values()].includes(streamId),
      deleteStream: (streamId) => store.deleteStream!(streamId),
    });
  }
}
