/**
 * `WorkerTransport`: one 2025-era MCP session served over the MCP SDK's own web-standard
 * sessionful Streamable HTTP transport, plus what a Worker or Durable Object needs around it:
 * the session survives the host being evicted (it is restored from storage by replaying the
 * stored `initialize` into a fresh server), resumed streams end after their final response,
 * and stored events are dropped once their stream is done.
 */
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport as V2Transport,
  type AuthInfo,
  type EventStore,
} from "@modelcontextprotocol/server";
import { isSdkV2Server, protocolOf, type AnyMcpServer } from "../server-product";
import { DurableObjectEventStore } from "../event-store";
import {
  negotiatedVersion,
  normalizeInitialize,
  withSessionVersion,
  type JsonRpcMessage,
} from "./initialize-record";
import { relateServerRequests } from "./related-requests";
import { watchSseResponse } from "./sse-close-watcher";
import { useWorkerSafeValidator } from "./worker-safe-validator";

/** What is persisted about a session so it can be restored after eviction. */
export interface SessionRecord {
  /** The `Mcp-Session-Id` issued at `initialize`. */
  sessionId: string;
  /** The client's `initialize` request (capabilities normalized), replayed on restore. */
  initialize: JsonRpcMessage;
}

/** Where the session record lives (a Durable Object's storage, KV, …). */
export interface SessionStorage {
  get(): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  set(record: SessionRecord): Promise<void> | void;
}

/** An event store this transport can also ask to forget a finished stream. */
export type WorkerEventStore = EventStore & { deleteStream?(streamId: string): Promise<void> };

/** Options of the Worker transport (the SDK transport options that make sense here, plus storage). */
export interface WorkerTransportOptions {
  /** Session id generator. Default `crypto.randomUUID()`. */
  sessionIdGenerator?: () => string;
  /** Event log for `Last-Event-ID` replay (e.g. `DurableObjectEventStore`). */
  eventStore?: WorkerEventStore;
  /** Session record storage: lets a fresh isolate or object take over the session. */
  storage?: SessionStorage;
  /** Interval of `: keepalive` comments on open SSE streams. Default 25,000 ms; 0 disables. */
  keepAliveMs?: number;
  /** `retry:` hint (ms) sent with the priming event of resumable streams. */
  retryInterval?: number;
  /** Answer POSTs with JSON instead of SSE (drops notifications sent before the result). */
  enableJsonResponse?: boolean;
  /** Largest accepted POST body in bytes. Default 4 MiB. */
  maxRequestBodySize?: number;
  /** Called once when a client initializes a new session (not on restore). */
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  /** Called when a client ends the session with `DELETE`. */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Transport errors (reporting only; never changes a response). */
  onerror?: (error: Error) => void;
}

/** The default interval of SSE keep-alive comments: under the edge's idle-stream watchdog. */
export const DEFAULT_KEEP_ALIVE_MS = 25_000;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/** The SDK transport surface used here (v1 and v2 share it). */
interface SdkTransport {
  sessionId?: string;
  onerror?: (error: Error) => void;
  handleRequest(
    request: Request,
    options?: { parsedBody?: unknown; authInfo?: AuthInfo },
  ): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A sessionful Streamable HTTP endpoint for one server instance.
 *
 * Security defaults: session ids are random UUIDs (or your generator); requests with an
 * unknown id get `404`; client capabilities are only what the client declared at
 * `initialize` (an empty `elicitation: {}` counts as form mode, as the spec says).
 *
 * Does not do: Origin/Host checks, CORS or authentication (the caller does them first), and
 * it serves one session: a second `initialize` is refused by the SDK transport.
 */
export class WorkerTransport {
  readonly #server: AnyMcpServer;
  readonly #options: WorkerTransportOptions;
  #transport: SdkTransport | undefined;
  #starting: Promise<SdkTransport> | undefined;
  #pendingInitialize: JsonRpcMessage | undefined;
  /** The session's negotiated protocol version, once known. */
  #version: string | undefined;

  /**
   * @param server - an SDK v1 or v2 server, not yet connected
   * @param options - transport options
   */
  constructor(server: AnyMcpServer, options: WorkerTransportOptions = {}) {
    this.#server = server;
    this.#options = options;
  }

  /** The session id once a client initialized (or the session was restored). */
  get sessionId(): string | undefined {
    return this.#transport?.sessionId;
  }

  /**
   * Connects the server and restores a stored session. Idempotent; concurrent callers share
   * one start.
   *
   * @returns resolves once the transport can serve requests
   */
  async start(): Promise<void> {
    this.#starting ??= this.#connect();
    await this.#starting;
  }

  /**
   * Serves one HTTP request of the session (POST, GET or DELETE).
   *
   * @param request - the request (guards and auth already applied)
   * @param options - verified `authInfo` to hand to handlers
   * @returns the transport's response
   */
  async handleRequest(incoming: Request, options: { authInfo?: AuthInfo } = {}): Promise<Response> {
    await this.start();
    const request = withSessionVersion(incoming, this.#version, SUPPORTED_PROTOCOL_VERSIONS);
    const transport = this.#transport!;
    const auth = options.authInfo === undefined ? {} : { authInfo: options.authInfo };
    if (request.method.toUpperCase() !== "POST") {
      return this.#watch(await transport.handleRequest(request, auth));
    }
    const limit = this.#options.maxRequestBodySize ?? DEFAULT_MAX_BODY;
    const text = await request.text();
    if (text.length > limit) return jsonError(413, -32000, `Request body exceeds ${limit} bytes.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Let the SDK answer the parse error in its own words.
      return transport.handleRequest(new Request(request, { method: "POST", body: text }), auth);
    }
    const initialize = normalizeInitialize(parsed);
    if (initialize !== undefined) this.#pendingInitialize = initialize;
    return this.#watch(await transport.handleRequest(request, { ...auth, parsedBody: parsed }));
  }

  /** Closes the transport (open streams end). */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  async #connect(): Promise<SdkTransport> {
    const record = await this.#options.storage?.get();
    const v2 = isSdkV2Server(this.#server);
    if (!v2) useWorkerSafeValidator(this.#server);
    const Transport = v2 ? V2Transport : await loadV1Transport();
    let restoring = record !== undefined;
    const transport: SdkTransport = new Transport({
      sessionIdGenerator: () =>
        record?.sessionId ?? this.#options.sessionIdGenerator?.() ?? crypto.randomUUID(),
      keepAliveMs: this.#options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      ...(this.#options.eventStore !== undefined && { eventStore: this.#options.eventStore }),
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
        if (initialize !== undefined) {
          this.#version = negotiatedVersion(initialize, SUPPORTED_PROTOCOL_VERSIONS);
          await this.#options.storage?.set({ sessionId, initialize });
        }
        await this.#options.onsessioninitialized?.(sessionId);
      },
      onsessionclosed: async (sessionId: string) => {
        await this.#options.onsessionclosed?.(sessionId);
      },
    });
    await (this.#server as { connect(t: unknown): Promise<void> }).connect(transport);
    if (this.#options.enableJsonResponse !== true) relateServerRequests(transport as never);
    // Set after connect: the server installs its own onerror chain on the transport.
    const serverOnError = transport.onerror;
    // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
    transport.onerror = (error) => {
      serverOnError?.(error);
      try {
        this.#options.onerror?.(error);
      } catch {
        // Reporting must never change a response.
      }
    };
    this.#transport = transport;
    if (record !== undefined) {
      this.#version = negotiatedVersion(record.initialize, SUPPORTED_PROTOCOL_VERSIONS);
      // Replaying the handshake restores the session id on the transport and the client's
      // capabilities and identity on the server, through public entry points only.
      const response = await transport.handleRequest(
        new Request("https://session.restore/", {
          method: "POST",
          headers: {
            accept: "application/json, text/event-stream",
            "content-type": "application/json",
          },
        }),
        { parsedBody: record.initialize },
      );
      await this.#watch(response).arrayBuffer();
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

/**
 * Whether `server` is already connected to a transport (one server cannot serve two).
 *
 * @param server - an SDK v1 or v2 server
 * @returns `true` when connected
 */
export function isConnected(server: AnyMcpServer): boolean {
  return protocolOf(server).transport !== undefined;
}

/** SDK v1's transport, loaded only when a v1 server is served (keeps v1 out of other bundles' start-up). */
async function loadV1Transport(): Promise<typeof V2Transport> {
  const module = await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
  return module.WebStandardStreamableHTTPServerTransport as unknown as typeof V2Transport;
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
