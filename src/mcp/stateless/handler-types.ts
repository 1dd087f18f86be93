/**
 * The public types of the stateless handler: its options, its factory and the handler
 * object it returns.
 */
import type { McpAuthContext } from "../common/auth-context";
import type {
  CreateMcpHandlerOptions as SdkCreateMcpHandlerOptions,
  McpHandlerRequestOptions,
  McpRequestContext,
  RequestStateCodec,
  ServerEventBus,
  ServerNotifier,
} from "@modelcontextprotocol/server";
import type { CorsOptions } from "../common/cors";
import type { RequestStateOptions } from "./request-state";
import type { TasksOptions } from "../tasks/task-support";
import type { AnyMcpServer } from "../common/server-kind";

/** What a factory receives for each request. */
export interface McpServerFactoryContext extends McpRequestContext {
  /**
   * The handler's `requestState` codec when the `requestState` option is set: seal values for
   * the next round with `await ctx.requestState.mint(payload, handlerCtx)`.
   */
  requestState?: RequestStateCodec;
}

/**
 * Builds a fresh server for one request: an SDK v2 `McpServer` or `Server` (or, deprecated,
 * an SDK v1 server, which serves 2025-era clients only). May be async; a zero-argument
 * function is fine.
 */
export type McpServerFactory = (
  ctx: McpServerFactoryContext,
) => AnyMcpServer | Promise<AnyMcpServer>;

/**
 * Options of `createMcpHandler`: the SDK v2 handler options (`responseMode`, `onerror`,
 * `maxRequestBodySize`, `keepAliveMs`, `maxSubscriptions`, `bus`) plus the Worker options.
 */
export interface CreateMcpHandlerOptions extends Omit<SdkCreateMcpHandlerOptions, "legacy"> {
  /** The exact pathname served; any other path answers `404`. Default `/mcp`. */
  route?: string;
  /** CORS header overrides (see `DEFAULT_CORS_OPTIONS`). A concrete `origin` joins the Origin allowlist. */
  corsOptions?: CorsOptions;
  /** Accepted `Host` hostnames; see `GuardOptions.allowedHostnames`. */
  allowedHostnames?: string[];
  /** Accepted browser `Origin` hostnames, or `"*"` behind trusted Origin-checking middleware. */
  allowedOriginHostnames?: string[] | "*";
  /**
   * 2025-era traffic: `"stateless"` (default) serves each POST with a fresh server, answers
   * GET and DELETE with `405`, and fails server-to-client requests at once; `"reject"` makes
   * the endpoint 2026-07-28-only.
   */
  legacy?: "stateless" | "reject";
  /** Seal multi-round-trip `requestState` with this key (see `RequestStateOptions`). */
  requestState?: RequestStateOptions;
  /**
   * Application props `getMcpAuthContext()` returns for every request, instead of the ones
   * derived from `authInfo` (as `agents`' option of the same name).
   */
  authContext?: McpAuthContext;
  /**
   * Serve the MCP tasks extension (2026-07-28) from a task Durable Object: calls of tools
   * registered with `execution: { taskSupport }` become tasks for clients that declare the
   * extension. Without it the handler keeps no state and tasks are not advertised.
   */
  tasks?: TasksOptions;
  /** @deprecated SDK v1 option, refused: the handler builds a transport per request. */
  transport?: never;
  /** @deprecated SDK v1 option, refused: the handler keeps no session storage. */
  storage?: never;
  /** @deprecated SDK v1 option, refused: the handler issues no session ids. */
  sessionIdGenerator?: never;
  /** @deprecated SDK v1 option, refused: the handler has no resumable streams. */
  eventStore?: never;
  /** @deprecated SDK v1 option, refused: use `responseMode: "json"`. */
  enableJsonResponse?: never;
}

/**
 * The handler `createMcpHandler` returns. Create it once at module scope so `notify` reaches
 * the listen streams it serves.
 */
export interface StatelessMcpHandler {
  /** Worker face: call it from your `fetch` export as `handler(request, env, ctx)`. */
  (request: Request, env: unknown, ctx: ExecutionContext): Promise<Response>;
  /**
   * Framework face: serve a request behind another router or auth layer. `authInfo` is passed
   * to the factory and handlers as is (never derived from headers here); `parsedBody` spares
   * a second body read.
   */
  fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response>;
  /** Publish change events to this handler's open `subscriptions/listen` streams (no-op when none). */
  notify: ServerNotifier;
  /** The event bus behind `notify` (the `bus` option, or an in-isolate default). */
  bus: ServerEventBus;
  /** The `requestState` codec when the option is set, otherwise `undefined`. */
  requestState: RequestStateCodec | undefined;
  /** Close open listen streams and in-flight modern exchanges; later requests throw. */
  close(): Promise<void>;
}
