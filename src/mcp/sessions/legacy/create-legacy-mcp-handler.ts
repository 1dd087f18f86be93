/**
 * `createLegacyMcpHandler`: a temporary migration bridge that serves an SDK v1 server with
 * full 2025-era sessions (session id, standalone GET stream, `Last-Event-ID` replay,
 * server-to-client requests, `DELETE`) from a plain Worker, over the Worker transport.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { CodeModeError, jsonRpcError, PROTOCOL_CODES } from "../../../errors";
import {
  authContextFrom,
  authInfoFromOAuthProps,
  runWithAuthContext,
  withAuthContextBody,
} from "../../common/auth-context";
import { preflightResponse, withCors, type CorsOptions } from "../../common/cors";
import { guardRequest, type GuardOptions } from "../../common/guards";
import type { AnyMcpServer } from "../../common/server-kind";
import { installLegacyTaskSupport } from "../../tasks/legacy-task-support";
import { serveLegacyTaskRequest } from "../../tasks/legacy-task-requests";
import { registerTaskRoundServer } from "../../tasks/task-rounds";
import { registerLedger, type TasksOptions } from "../../tasks/task-support";
import { checkDnsRebinding } from "./dns-rebinding-options";
import { legacyRoundServer } from "./legacy-task-rounds";
import { isConnected, WorkerTransport, type WorkerTransportOptions } from "./worker-transport";

/** Options of {@link createLegacyMcpHandler}: the Worker transport options plus routing and guards. */
export interface CreateLegacyMcpHandlerOptions extends WorkerTransportOptions {
  /** The exact pathname served; any other path answers `404`. Default `/mcp`. */
  route?: string;
  /** CORS header overrides (see `DEFAULT_CORS_OPTIONS`). */
  corsOptions?: CorsOptions;
  /** Accepted `Host` hostnames; see `GuardOptions.allowedHostnames`. */
  allowedHostnames?: string[];
  /** Accepted browser `Origin` hostnames, or `"*"` behind trusted Origin-checking middleware. */
  allowedOriginHostnames?: string[] | "*";
  /**
   * A persistent transport the server is already connected to (kept at module scope), to
   * reuse across requests; the other transport options are then ignored, except the SDK v1
   * DNS-rebinding options, which the handler applies itself.
   */
  transport?: WorkerTransport;
  /**
   * Serve 2025-11-25 tasks from the task Durable Object (the same {@link TasksOptions} and
   * `McpTaskStore` namespace as `createMcpHandler`'s): a `tools/call` with `params.task` of a
   * tool marked with `setTaskSupport` returns a task at once, and the run continues in the task
   * object, which builds its own server with `server` for it. Not with `transport`.
   */
  tasks?: LegacyTasksOptions;
}

/** The `tasks` option of {@link createLegacyMcpHandler}. */
export interface LegacyTasksOptions extends TasksOptions {
  /**
   * Builds a fresh server with the same tools for each run of a task, inside the task object
   * (the handler's own server belongs to the request that created the task).
   */
  server: () => AnyMcpServer | Promise<AnyMcpServer>;
}

/**
 * The handler: callable from a Worker's `fetch`, or `.fetch(request, { authInfo, parsedBody })`
 * behind a framework (`parsedBody` when middleware already read the JSON body).
 */
export interface LegacyMcpHandler {
  (request: Request, env: unknown, ctx: ExecutionContext): Promise<Response>;
  fetch(
    request: Request,
    options?: { authInfo?: AuthInfo; parsedBody?: unknown },
  ): Promise<Response>;
  /** The Worker transport serving the session. */
  transport: WorkerTransport;
}

/**
 * Serves one SDK v1 server with 2025-era sessions.
 *
 * Two ways to use it, because one server cannot be connected to several transports:
 * - persistent: create the server and the handler once at module scope (or in a Durable
 *   Object). One session per handler.
 * - per request (the documented legacy Worker): build a new server and handler in every
 *   `fetch`. Without `storage`, the session id carries the client's `initialize` record and
 *   each fresh server restores the session from it; with `storage` (and an `eventStore`) the
 *   record and the stream events live there instead.
 *
 * Server-to-client requests (elicitation, sampling, roots) need a Durable Object: the client's
 * answer arrives in another request, and a plain Worker may not write to the stream of the
 * request that asked ("Cannot perform I/O on behalf of a different request"), so in a plain
 * Worker the tool waits for its timeout, per request or at module scope alike. Use McpAgent
 * for them (in-process tests do not show this: they run every request in one context).
 *
 * Security defaults: the same Origin/Host guards and CORS defaults as `createMcpHandler`,
 * plus SDK v1's `enableDnsRebindingProtection` / `allowedHosts` / `allowedOrigins` when set;
 * random session ids; ids this library did not issue get `404`; a transport failure answers
 * `500` / `-32603` (reported to `onerror`) and the next request starts over; OAuth
 * `ctx.props` become `authInfo` and `getMcpAuthContext()`.
 *
 * Cancels: a client's `notifications/cancelled`, and the `DELETE` that ends its session, end the
 * runs they name even when another server (per request) serves them: the request's own POST
 * hands its server the cancel (cancel-relay.ts). A dropped POST stream is not a cancel (the
 * client may resume it).
 *
 * Tasks (2025-11-25): with `tasks`, a marked tool called with `params.task` runs in the task
 * Durable Object, which builds its own server with `tasks.server`; `tasks/get`, `tasks/result`
 * and `tasks/cancel` are answered from that object, so any request, session or isolate can
 * follow the task. Its run cannot ask the client for input (see legacy-task-rounds.ts).
 *
 * Does not do: 2026-07-28 requests (use `createMcpHandler` with an SDK v2 server), several
 * sessions per persistent handler, or token verification (put an OAuth provider in front).
 * Without `storage`, nothing remembers that a session was deleted, so a fresh server will
 * restore any id it issued.
 *
 * @param server - an SDK v1 `McpServer` or `Server` (SDK v2 servers also work)
 * @param options - transport, route, CORS and guard options
 * @returns the handler
 * @throws CodeModeError `"server_connected"` when `server` is already connected and no
 *   `transport` is given, `"invalid_option"` for a bad `route` or for `tasks` given with
 *   `transport`
 */
export function createLegacyMcpHandler(
  server: AnyMcpServer,
  options: CreateLegacyMcpHandlerOptions = {},
): LegacyMcpHandler {
  const {
    route = "/mcp",
    corsOptions = {},
    allowedHostnames,
    allowedOriginHostnames,
    transport: given,
    tasks,
    ...transportOptions
  } = options;
  if (!route.startsWith("/")) {
    throw new CodeModeError(
      "invalid_option",
      `createLegacyMcpHandler: route must start with "/", got "${route}".`,
    );
  }
  if (given === undefined && isConnected(server)) {
    throw new CodeModeError(
      "server_connected",
      "createLegacyMcpHandler: this server is already connected to a transport, and one SDK v1 server " +
        "cannot be connected to a second one. Build a new server for every handler " +
        "(createLegacyMcpHandler(createServer(), { storage, eventStore })), or create the server and the " +
        "handler once at module scope and reuse that handler, or pass the transport it is connected to as `transport`.",
    );
  }
  if (tasks !== undefined) {
    if (given !== undefined) {
      throw new CodeModeError(
        "invalid_option",
        "createLegacyMcpHandler: `tasks` declares a capability, which needs a server that is not connected yet; pass either `tasks` or `transport`, not both.",
      );
    }
    // Rounds run in the task object through this name (its route unless configured).
    const name = tasks.name ?? route;
    registerTaskRoundServer(name, legacyRoundServer(tasks.server));
    registerLedger(tasks, name);
    installLegacyTaskSupport(server, tasks, name);
  }
  const transport = given ?? new WorkerTransport(server, transportOptions);
  const guard: GuardOptions = {
    ...(allowedHostnames !== undefined && { allowedHostnames }),
    ...(allowedOriginHostnames !== undefined && { allowedOriginHostnames }),
    ...(corsOptions.origin !== undefined && { corsOrigin: corsOptions.origin }),
  };

  const serve = async (
    request: Request,
    authInfo: AuthInfo | undefined,
    parsedBody?: unknown,
  ): Promise<Response> => {
    if (new URL(request.url).pathname !== route) {
      return withCors(new Response("Not Found\n", { status: 404 }), corsOptions);
    }
    // A given transport has its own options; the SDK v1 DNS-rebinding ones set here still apply.
    const rejected =
      guardRequest(request, guard) ??
      (given === undefined ? undefined : checkDnsRebinding(request, transportOptions));
    if (rejected !== undefined) return withCors(rejected, corsOptions);
    if (request.method.toUpperCase() === "OPTIONS") return preflightResponse(corsOptions);
    const context = authContextFrom(authInfo);
    try {
      // tasks/get, tasks/result, tasks/cancel and a task's answers: served from the task
      // object; what it read of any other request's body goes on to the transport, read once.
      const legacyTasks =
        tasks === undefined
          ? { parsedBody }
          : await serveLegacyTaskRequest(tasks, request, authInfo, parsedBody);
      if (legacyTasks.answered !== undefined) return withCors(legacyTasks.answered, corsOptions);
      const body = legacyTasks.parsedBody;
      const response = await runWithAuthContext(context, () =>
        transport.handleRequest(request, {
          ...(authInfo !== undefined && { authInfo }),
          ...(body !== undefined && { parsedBody: body }),
        }),
      );
      return withCors(withAuthContextBody(response, context), corsOptions);
    } catch (error) {
      // A failing transport (storage down, a broken server) must answer this request, not
      // reject the Worker's fetch; the next request starts over (see WorkerTransport.start).
      reportError(error, transportOptions.onerror);
      return withCors(
        jsonRpcError(
          500,
          PROTOCOL_CODES.internalError,
          "Internal error: the MCP transport failed while handling this request. Retry it; " +
            "if it keeps failing, check the server's logs.",
        ),
        corsOptions,
      );
    }
  };

  const callable = (request: Request, _env: unknown, ctx: ExecutionContext) =>
    serve(
      request,
      authInfoFromOAuthProps(
        request,
        (ctx as { props?: unknown } | undefined)?.props,
        (ctx as { auth?: unknown } | undefined)?.auth,
      ),
    );
  return Object.assign(callable, {
    fetch: (request: Request, requestOptions?: { authInfo?: AuthInfo; parsedBody?: unknown }) =>
      serve(request, requestOptions?.authInfo, requestOptions?.parsedBody),
    transport,
  });
}

/** Hands a transport failure to `onerror`, or logs it (reporting must never throw). */
function reportError(error: unknown, onerror: ((error: Error) => void) | undefined): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  try {
    if (onerror === undefined) console.error("createLegacyMcpHandler: transport failure", failure);
    else onerror(failure);
  } catch {
    // Reporting must never change a response.
  }
}
