/**
 * What `McpAgent.serve` and `McpAgent.serveSSE` share on the Worker side: their options, the
 * fetch handler they return with its checks (path, guards, preflight, binding) and error answer, the props handed to an object,
 * and reaching a session's object.
 */
import { preflightResponse, withCors, type CorsOptions } from "../../common/cors";
import { guardRequest, type GuardOptions } from "../../common/guards";
import { isRecord } from "../../../is-record";
import { jsonRpcError, PROTOCOL_CODES } from "../../../errors";

/** Options of `McpAgent.serve`. */
export interface McpAgentServeOptions {
  /** The Durable Object binding of the agent class in `wrangler.jsonc`. Default `"MCP_OBJECT"`. */
  binding?: string;
  /** Pin every session's object (session data, state, SQL) to this jurisdiction. */
  jurisdiction?: "eu" | "fedramp";
  /** CORS header overrides (see `DEFAULT_CORS_OPTIONS`). A concrete `origin` joins the Origin allowlist. */
  corsOptions?: CorsOptions;
  /** Accepted `Host` hostnames; see `GuardOptions.allowedHostnames`. */
  allowedHostnames?: string[];
  /** Accepted browser `Origin` hostnames, or `"*"` behind trusted Origin-checking middleware. */
  allowedOriginHostnames?: string[] | "*";
}

/** The Worker fetch handler `serve` returns (an `ExportedHandler`, usable as an OAuth provider `apiHandlers` entry). */
export interface McpAgentHandler {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response>;
}

/** Where a serve call's request goes once it passed the shared checks. */
export interface AgentRoute {
  /** Whether the call serves this pathname (else `404`). */
  serves(pathname: string): boolean;
  /** A check after the guards and preflight, before the binding is looked up (e.g. `405`). */
  refuse?(request: Request, url: URL): Response | undefined;
  /** Routes the request to the agent's namespace, with the props for its object. */
  route(
    request: Request,
    url: URL,
    namespace: DurableObjectNamespace,
    init: AgentRequestInit,
  ): Promise<Response>;
}

/**
 * The fetch handler of a serve call. Each request: exact path match (else `404`), Host/Origin
 * guards (else `403`), CORS preflight, the call's own refusal, the agent's binding (else `500`),
 * then the call's routing. CORS headers go on every answer, and a throw is answered as a
 * JSON-RPC internal error whose details stay in the log (they may name internals, never a
 * client's business).
 *
 * @param caller - the API name for log lines (`McpAgent.serve`, `McpAgent.serveSSE`)
 * @param options - the serve call's options (binding, jurisdiction, CORS, guards)
 * @param agentRoute - the serve call's paths and routing
 * @returns the Worker fetch handler
 */
export function agentHandler(
  caller: string,
  options: McpAgentServeOptions,
  agentRoute: AgentRoute,
): McpAgentHandler {
  const { corsOptions = {} } = options;
  const guard = guardOptionsOf(options);
  const handle = async (request: Request, env: unknown, ctx: ExecutionContext) => {
    const url = new URL(request.url);
    if (!agentRoute.serves(url.pathname)) return new Response("Not Found\n", { status: 404 });
    const rejected = guardRequest(request, guard);
    if (rejected !== undefined) return rejected;
    if (request.method.toUpperCase() === "OPTIONS") return preflightResponse(corsOptions);
    const refused = agentRoute.refuse?.(request, url);
    if (refused !== undefined) return refused;
    const namespace = agentNamespace(env, options, caller);
    if (namespace === undefined) return notConfigured();
    return agentRoute.route(request, url, namespace, agentInit(ctx));
  };
  return {
    fetch: async (request, env, ctx) => {
      try {
        return withCors(await handle(request, env, ctx), corsOptions);
      } catch (error) {
        console.error(`${caller}: request failed`, error);
        return withCors(
          jsonRpcError(500, PROTOCOL_CODES.internalError, "Internal error"),
          corsOptions,
        );
      }
    },
  };
}

/**
 * The answer when the agent's binding is missing from `env` (`agentNamespace` logged which).
 *
 * @returns a `500` JSON-RPC internal error
 */
function notConfigured(): Response {
  return jsonRpcError(
    500,
    PROTOCOL_CODES.internalError,
    "Internal error: the MCP agent is not configured.",
  );
}

/** What `serve` and `serveSSE` hand a session's object with each request. */
export interface AgentRequestInit {
  /** `ctx.props` from the auth layer in front (e.g. `@cloudflare/workers-oauth-provider`). */
  props?: Record<string, unknown>;
}

/**
 * The Host/Origin guard options of a serve call.
 *
 * @param options - the serve options
 * @returns the guard options
 */
function guardOptionsOf(options: McpAgentServeOptions): GuardOptions {
  const origin = options.corsOptions?.origin;
  return {
    ...(options.allowedHostnames !== undefined && {
      allowedHostnames: options.allowedHostnames,
    }),
    ...(options.allowedOriginHostnames !== undefined && {
      allowedOriginHostnames: options.allowedOriginHostnames,
    }),
    ...(origin !== undefined && { corsOrigin: origin }),
  };
}

/**
 * The agent's namespace in `env` (pinned to the jurisdiction when one is set), or `undefined`
 * (logged) when the binding is missing.
 *
 * @param env - the Worker's env
 * @param options - binding (default `"MCP_OBJECT"`) and jurisdiction
 * @param caller - the API name for the log line
 * @returns the namespace
 */
function agentNamespace(
  env: unknown,
  options: McpAgentServeOptions,
  caller: string,
): DurableObjectNamespace | undefined {
  const binding = options.binding ?? "MCP_OBJECT";
  const bound = (env as Record<string, unknown> | undefined)?.[binding];
  if (!isNamespace(bound)) {
    console.error(`${caller}: no Durable Object binding named "${binding}" in env.`);
    return undefined;
  }
  return options.jurisdiction === undefined ? bound : bound.jurisdiction(options.jurisdiction);
}

/**
 * The OAuth props of the Worker's execution context, as handed to the object over RPC (never
 * in headers a client could forge).
 *
 * @param ctx - the Worker's execution context
 * @returns the request init for the object
 */
function agentInit(ctx: ExecutionContext): AgentRequestInit {
  const props = (ctx as { props?: unknown } | undefined)?.props;
  return isRecord(props) && Object.keys(props).length > 0 ? { props } : {};
}

/**
 * The object of `id`, or `undefined` when `sessionId` is not an id of this namespace.
 *
 * @param namespace - the agent's namespace
 * @param sessionId - a client-supplied session id
 * @returns the stub
 */
export function sessionStub<T>(
  namespace: DurableObjectNamespace,
  sessionId: string,
): T | undefined {
  try {
    return namespace.get(namespace.idFromString(sessionId)) as unknown as T;
  } catch {
    return undefined;
  }
}

/**
 * The request without its `AbortSignal`, which RPC cannot carry. A client that goes away is
 * still noticed: the object's response body is cancelled.
 *
 * @param request - the client's request
 * @returns a request RPC can carry
 */
export function forRpc(request: Request): Request {
  return request.signal === undefined ? request : new Request(request, { signal: null });
}

function isNamespace(value: unknown): value is DurableObjectNamespace {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as DurableObjectNamespace).newUniqueId === "function"
  );
}
