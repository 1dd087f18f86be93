/**
 * The Worker transport's options and the session record it persists (kept apart from the
 * transport so its file stays one concept).
 */
import type { EventStore } from "@modelcontextprotocol/server";
import type { DnsRebindingOptions } from "./dns-rebinding-options";
import type { JsonRpcMessage } from "./initialize-record";

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
export type WorkerEventStore = EventStore & {
  deleteStream?(streamId: string): Promise<void>;
};

/** Options of the Worker transport (the SDK transport options that make sense here, plus storage). */
export interface WorkerTransportOptions extends DnsRebindingOptions {
  /** Session id generator. Default `crypto.randomUUID()`. */
  sessionIdGenerator?: () => string;
  /** Event log for `Last-Event-ID` replay (e.g. `DurableObjectEventStore`). */
  eventStore?: WorkerEventStore;
  /**
   * Session record storage: lets a fresh isolate or object take over the session. Without it
   * (and without `sessionIdGenerator`), the session id carries the client's initialize record
   * so a server built for a later request restores the session from the id.
   */
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
