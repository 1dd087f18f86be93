/**
 * What `McpAgent.serve` and `McpAgent.serveSSE` share on the Worker side: guard options,
 * finding the agent's Durable Object namespace, the props handed to an object, and errors.
 */
import type { GuardOptions } from "../../common/guards";
import type { McpAgentServeOptions } from "./serve-agent";
import { isRecord } from "../../../is-record";

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
