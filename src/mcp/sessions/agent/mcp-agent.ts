/**
 * `McpAgent`: a stateful MCP server backed by a Durable Object. Every 2025-era client session
 * gets its own object with persistent state and SQLite database; the SDK's sessionful Streamable
 * HTTP transport runs inside it, with a Durable Object event store for `Last-Event-ID` replay.
 *
 * ## Storage keys (synchronous KV of the SQLite-backed object)
 *
 * - `mcp:session` → `{ sessionId, initialize }`, written at `initialize`, read after a wake-up
 *   to restore the session (id, client capabilities and identity).
 * - `mcp:state` → the last `setState` value. `mcp:props` → the latest OAuth props.
 * - `mcp:event:*` → the event log (see `DurableObjectEventStore`).
 * - `mcp:sse` → the record of an HTTP+SSE session (see `SseSession`). Your tables via `sql`.
 *
 * Idle sessions hold no request or timer in the object (relayed streams are hibernatable
 * WebSockets). Lifecycle: the object lives as long as its session; `DELETE` (HTTP+SSE: the
 * end of the event stream) deletes all of its storage.
 */
import { DurableObject } from "cloudflare:workers";
import { CodeModeError, jsonRpcError, PROTOCOL_CODES } from "../../../errors";
import {
  authContextFrom,
  authInfoFromOAuthProps,
  runWithAuthContext,
  withAuthContextBody,
} from "../../common/auth-context";
import type { AnyMcpServer } from "../../common/server-kind";
import {
  pushElicitation,
  type ElicitationAnswer,
  type ElicitOptions,
  type FormElicitation,
  type UrlElicitation,
} from "./push-elicitation";
import type { McpAgentHandler, McpAgentServeOptions } from "./routing";
import { serveMcpAgent, type AgentRequestInit } from "./serve-agent";
import { serveMcpAgentSse, type McpAgentSseOptions } from "./serve-sse";
import { runSqlTemplate, type SqlValue } from "./sql-template";
import { SseSession } from "./sse-session";
import { SSE_SOCKET_TAG } from "./sse-bridge-transport";
import {
  acceptStandaloneStream,
  attachStandaloneStream,
  STANDALONE_STREAM_HEADER,
} from "./standalone-stream";
import { SESSION_KEY, startStreamableSession, type StreamableSession } from "./streamable-session";
import { onceUntilFailure } from "./once-until-failure";
import type { McpAgentHooks } from "./agent-hooks";

export type { McpAgentHooks } from "./agent-hooks";

const STATE_KEY = "mcp:state";
const PROPS_KEY = "mcp:props";

/**
 * Base class of a stateful MCP server. Subclass it, create `server` (an SDK v1 or v2
 * `McpServer`), register tools in `init()`, optionally define `initialState`, `onStateChanged`
 * (or the older `onStateUpdate`; see {@link McpAgentHooks}), bind the class as a SQLite-backed Durable Object
 * and serve it with `MyMCP.serve("/mcp", { binding: "MyMCP" })`.
 *
 * ```ts
 * export class MyMCP extends McpAgent<Env, { counter: number }> {
 *   server = new McpServer({ name: "Demo", version: "1.0.0" });
 *   initialState = { counter: 1 };
 *   async init() {
 *     this.server.tool("add", { a: z.number() }, async ({ a }) => {
 *       this.setState({ counter: this.state.counter + a });
 *       return { content: [{ type: "text", text: `Added ${a}, total is now ${this.state.counter}` }] };
 *     });
 *   }
 * }
 * ```
 *
 * Security defaults: one object per session (state never crosses sessions); Origin/Host
 * guards and CORS as in `createMcpHandler`; OAuth props reach the object over RPC, are kept
 * current on every request, and become `authInfo` / `getMcpAuthContext()` in handlers.
 *
 * Does not do: 2026-07-28 requests (use `createMcpHandler`), WebSocket callbacks
 * (`onMessage`, `onError`, `onClose`, `onConnect`) or scheduling (`schedule`). It does not
 * bind a session to one user: the session id is an unguessable capability, and `props` are
 * those of the latest request that brought any; check identity in tools when it matters.
 * Needs a SQLite-backed class (`new_sqlite_classes` in the migrations).
 */
export abstract class McpAgent<
  Env = Cloudflare.Env,
  State = unknown,
  Props extends Record<string, unknown> = Record<string, unknown>,
> extends DurableObject<Env> {
  /** The server tools are registered on (SDK v1 or v2 `McpServer` / `Server`). */
  abstract server: AnyMcpServer;
  /** User identity and tokens from OAuth (`ctx.props` of the latest request that had them). */
  props: Props | undefined;
  /** Interval of `: keepalive` comments on open SSE streams (ms). */
  keepAliveMs = 25_000;
  /** How long `elicitInput` waits for an answer by default (ms). */
  elicitationTimeoutMs = 300_000;
  /** Optional `retry:` hint (ms) sent to clients with the first event of a resumable stream. */
  retryIntervalMs: number | undefined = undefined;

  #state: { value: State } | undefined;
  /** Runs `init()` once per instance: tools registered twice would throw on every retry. */
  readonly #initOnce = onceUntilFailure(() => this.init());
  readonly #start = onceUntilFailure(async () => {
    await this.#initOnce();
    const { ctx, server, keepAliveMs, retryIntervalMs } = this;
    return startStreamableSession({ ctx, server, keepAliveMs, retryIntervalMs });
  });
  #ended = false;
  #sse: SseSession | undefined;

  /** Registers tools, resources and prompts on `server`. Runs once per instance, before the first request. */
  abstract init(): Promise<void>;

  /** The current persisted state (`initialState` until the first `setState`). */
  get state(): State {
    const initial = (this as McpAgentHooks<State>).initialState as State;
    this.#state ??= { value: this.ctx.storage.kv.get<State>(STATE_KEY) ?? initial };
    return this.#state.value;
  }

  /**
   * Replaces and persists the state, then calls `onStateChanged` (and `onStateUpdate`).
   *
   * @param state - the new state (structured-cloneable)
   */
  setState(state: State): void {
    this.ctx.storage.kv.put(STATE_KEY, state);
    this.#state = { value: state };
    const hooks = this as McpAgentHooks<State>;
    hooks.onStateChanged?.(state, "server");
    hooks.onStateUpdate?.(state, "server");
  }

  /**
   * Runs one SQL statement against this instance's SQLite database; interpolations are bound
   * parameters.
   *
   * @param strings - template parts
   * @param values - bound values
   * @returns the result rows
   */
  sql<T = Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: SqlValue[]): T[] {
    return runSqlTemplate<T>(this.ctx.storage.sql, strings, values);
  }

  /**
   * Asks the client for input in the middle of a tool call (see `pushElicitation`):
   * `await this.elicitInput({ message, requestedSchema }, { relatedRequestId: extra.requestId })`.
   *
   * @param params - a form (`mode` may be omitted) or URL request
   * @param options - `relatedRequestId` of the tool call, optional `timeout` in ms
   * @returns `{ action: "accept" | "decline" | "cancel", content? }`
   * @throws CodeModeError `"elicitation_unsupported"` when the client did not declare the
   *   mode, `"invalid_elicitation"` for a URL request without an id or an http(s) url,
   *   `"elicitation_timeout"` when no answer came in time
   */
  elicitInput(
    params: FormElicitation | UrlElicitation,
    options: ElicitOptions = {},
  ): Promise<ElicitationAnswer> {
    return pushElicitation(this.server, params, {
      ...options,
      timeout: options.timeout ?? this.elicitationTimeoutMs,
    });
  }

  /**
   * Builds the Worker fetch handler routing `path` to this agent class.
   *
   * @param path - exact pathname, e.g. `/mcp`
   * @param options - `binding` (default `"MCP_OBJECT"`), `jurisdiction`, `corsOptions`, guards
   * @returns an `ExportedHandler`-shaped `{ fetch }`
   */
  static serve(path: string, options: McpAgentServeOptions = {}): McpAgentHandler {
    return serveMcpAgent(path, options);
  }

  /**
   * Builds the Worker fetch handler serving this agent class over the 2024-11-05 HTTP+SSE
   * transport (`GET path` opens the stream; see `serveMcpAgentSse`).
   * @param path - exact pathname of the event stream, e.g. `/sse`
   * @param options - the options of `serve`, plus `keepAliveMs` of the Worker-held stream
   * @returns an `ExportedHandler`-shaped `{ fetch }`
   */
  static serveSSE(path: string, options: McpAgentSseOptions = {}): McpAgentHandler {
    return serveMcpAgentSse(path, options);
  }

  /**
   * RPC entry used by `serveSSE` when a stream opens. Not for direct use.
   * @param init - OAuth props from the router
   */
  openSseSession(init: AgentRequestInit = {}): void {
    this.#updateProps(init.props);
    this.#sseSession().open();
  }

  /**
   * Accepts the hibernatable WebSocket a Worker-held event stream is relayed through: the
   * HTTP+SSE stream (`serveSSE`) or a session's standalone GET stream (`serve`).
   * @param request - the Worker's upgrade request (only the Worker reaches `fetch`)
   * @returns `101` with the socket, or an error response
   */
  async fetch(request: Request): Promise<Response> {
    if (!request.headers.has(STANDALONE_STREAM_HEADER)) return this.#sseSession().accept(request);
    if (this.#ended || this.#kv().get(SESSION_KEY) === undefined) return sessionNotFound();
    const started = await this.#startOrAnswer();
    if (started instanceof Response) return started;
    const { eventStore } = started;
    const response = await acceptStandaloneStream(this.ctx, request, eventStore, this.keepAliveMs);
    attachStandaloneStream(this.ctx, this.server);
    return response;
  }

  /**
   * RPC entry used by `serveSSE`: one client POST of this object's session. Not for direct use.
   * @param request - the client's POST
   * @param init - OAuth props from the router
   * @returns `202`, or an error response naming the problem
   */
  async serveSseMessage(request: Request, init: AgentRequestInit = {}): Promise<Response> {
    if (this.#ended) return this.#sseSession().notFound();
    this.#updateProps(init.props);
    return this.#sseSession().serve(request, this.props);
  }

  /** @param socket - a relayed stream's socket that closed; an HTTP+SSE session ends with it */
  async webSocketClose(socket: WebSocket): Promise<void> {
    if (!this.ctx.getTags(socket).includes(SSE_SOCKET_TAG)) return;
    await this.#sse?.close();
    await this.#endSession();
  }

  /** @param socket - a relayed stream's socket that failed (as {@link webSocketClose}) */
  async webSocketError(socket: WebSocket): Promise<void> {
    await this.webSocketClose(socket);
  }

  /**
   * RPC entry used by `serve`: serves one request of this object's session. Not for direct use.
   * @param request - the client's request
   * @param init - OAuth props from the router
   * @returns the response
   */
  async serveMcp(request: Request, init: AgentRequestInit = {}): Promise<Response> {
    const known = this.#kv().get(SESSION_KEY) !== undefined;
    if (this.#ended || (request.headers.has("mcp-session-id") && !known)) return sessionNotFound();
    this.#updateProps(init.props);
    const started = await this.#startOrAnswer();
    if (started instanceof Response) return started;
    const { transport } = started;
    const authInfo = authInfoFromOAuthProps(request, this.props);
    const context = authContextFrom(authInfo);
    const response = await runWithAuthContext(context, () =>
      transport.handleRequest(request, authInfo === undefined ? {} : { authInfo }),
    );
    if (request.method.toUpperCase() === "DELETE" && response.ok) await this.#endSession();
    return withAuthContextBody(response, context);
  }

  /**
   * The started session, or the answer when it could not start (a transient storage error, a
   * throwing `init()`): logged here and answered `503`, never thrown. A throw would leave this
   * object's RPC method as an uncaught exception in the runtime's log, besides the caller's
   * own log line; the next request starts it again.
   */
  async #startOrAnswer(): Promise<StreamableSession | Response> {
    try {
      return await this.#start();
    } catch (error) {
      console.error("McpAgent: the session could not start; the next request tries again", error);
      return jsonRpcError(
        503,
        PROTOCOL_CODES.internalError,
        "Internal error: the session could not start. Retry the request.",
      );
    }
  }

  #kv(): SyncKvStorage {
    const kv = this.ctx.storage.kv as SyncKvStorage | undefined;
    if (kv !== undefined) return kv;
    throw new CodeModeError(
      "not_sqlite",
      "McpAgent needs a SQLite-backed Durable Object: list the class under migrations[].new_sqlite_classes in wrangler.jsonc.",
    );
  }

  #sseSession(): SseSession {
    this.#kv();
    const initOnce = () => this.#initOnce();
    this.#sse ??= new SseSession({ ctx: this.ctx, server: this.server, initOnce });
    return this.#sse;
  }

  #updateProps(props: Record<string, unknown> | undefined): void {
    const kv = this.#kv();
    if (props === undefined) {
      this.props ??= kv.get<Props>(PROPS_KEY);
      return;
    }
    // A newer token may carry new props: the latest request always wins.
    this.props = props as Props;
    kv.put(PROPS_KEY, props);
  }

  async #endSession(): Promise<void> {
    this.#ended = true;
    this.#state = undefined;
    // Relayed streams end with the session (the Worker then ends the client's stream).
    for (const socket of this.ctx.getWebSockets()) socket.close(1000, "session ended");
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}

function sessionNotFound(): Response {
  return jsonRpcError(404, PROTOCOL_CODES.sessionNotFound, "Session not found");
}
