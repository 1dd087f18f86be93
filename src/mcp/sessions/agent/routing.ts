/**
 * What `McpAgent.serve` and `McpAgent.serveSSE` share on the Worker side: guard options,
 * finding the agent's Durable Object namespace, the props handed to an object, and errors.
 */
import { withCors, type CorsOptions } from "../../common/cors";
import type { GuardOptions } from "../../common/guards";
import type { McpAgentHandler, McpAgentServeOptions } from "./serve-agent";
import { isRecord } from "../../../is-record";
import { jsonRpcError, PROTOCOL_CODES } from "../../../errors";

/** One serve call's routing of a request, before CORS and the last-resort error answer. */
export type AgentRoute = (
  request: Request,
  env: unknown,
  ctx: ExecutionContext,
) => Promise<Response>;

/**
 * The fetch handler around a serve call's route: CORS headers on every answer, and a throw
 * answered as a JSON-RPC internal error whose details stay in the log (they may name
 * internals, never a client's business).
 *
 * @param caller - the API name for the log line (`McpAgent.serve`, `McpAgent.serveSSE`)
 * @param corsOptions - the serve call's CORS options
 * @param route - the serve call's routing
 * @returns the Worker fetch handler
 */
export function agentHandler(
  caller: string,
  corsOptions: CorsOptions,
  route: AgentRoute,
): McpAgentHandler {
  return {
    fetch: async (request, env, ctx) => {
      try {
        return withCors(await route(request, env, ctx), corsOptions);
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
export function notConfigured(): Response {
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
export function guardOptionsOf(options: McpAgentServeOptions): GuardOptions {
  const origin = options.corsOptions?.origin;
  return {
    ...(options.allowedHostnames !== undefined && { allowedHostnames: options.allowedHostnames }),
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
export function agentNamespace(
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
export function agentInit(ctx: ExecutionContext): AgentRequestInit {
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
