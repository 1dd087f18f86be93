/**
 * `createMcpHandler`: the stateless way to serve MCP from a Worker. A thin layer over the
 * SDK v2 handler of the same name, which already serves 2026-07-28 per request (with
 * multi-round-trip `inputRequired`, `subscriptions/listen` and body limits) and 2025-era
 * POSTs statelessly. This layer adds what a bare Worker needs in front of it.
 */
import {
  createMcpHandler as createSdkMcpHandler,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpHandlerRequestOptions,
  type McpServer,
  type Server,
} from "@modelcontextprotocol/server";
import { AsyncLocalStorage } from "node:async_hooks";
import { CodeModeError, jsonRpcError, PROTOCOL_CODES } from "../../errors";
import {
  authContextFrom,
  authInfoFromOAuthProps,
  runWithAuthContext,
  withAuthContextBody,
} from "../common/auth-context";
import { CLIENT_CLOSED_REQUEST } from "../common/client-closed";
import { corsHeaderPairs, preflightResponse, withCors } from "../common/cors";
import { guardRequest } from "../common/guards";
import { urlParts } from "../common/request-url";
import type {
  CreateMcpHandlerOptions,
  McpServerFactory,
  McpServerFactoryContext,
  StatelessMcpHandler,
} from "./handler-types";
import { refuseV1TransportOptions } from "./refuse-v1-options";
import { pingAnswer } from "./ping-answer";
import { readBodyOnce } from "./body-once";
import { stopWhenSent } from "../common/cancel-board";
import { watchedRequest } from "./cancel-watch";
import { createRequestStateSealer } from "./request-state";
import { registerTaskRoundServer } from "../tasks/task-rounds";
import { installTaskSupport, registerLedger } from "../tasks/task-support";
import { installLegacyTaskSupport } from "../tasks/legacy-task-support";
import { serveLegacyTaskRequest } from "../tasks/legacy-task-requests";
import {
  isSdkV1ServerInstance,
  isSharedV1Lease,
  sharedV1Factory,
  type SdkV1Server,
} from "./shared-v1-server";
import {
  assertNotServing,
  failFastServerToClientRequests,
  installRequestStateVerify,
  warnSdkV1Once,
} from "./server-instance-checks";
import { isSdkV2Server } from "../common/server-kind";

/** Thrown inside the factory wrapper when an SDK v1 server meets a 2026-07-28 request. */
class SdkV1OnModernRequest extends Error {}

/**
 * Creates the stateless MCP handler for a Worker.
 *
 * ```ts
 * const handler = createMcpHandler(() => {
 *   const server = new McpServer({ name: "demo", version: "1.0.0" });
 *   server.registerTool("hello", { description: "Say hello" }, async () => ({
 *     content: [{ type: "text", text: "hello" }],
 *   }));
 *   return server;
 * });
 * export default { fetch: (request, env, ctx) => handler(request, env, ctx) };
 * ```
 *
 * Each request: exact `route` match (else `404`), Host/Origin guards (else `403`), CORS
 * preflight, then the SDK handler with a fresh server from `factory`. A POST whose client has
 * already gone (aborted signal) gets `499` and no server is built; nor is one for a plain
 * 2025-era `ping` (with `tasks`), answered `{}` as JSON (ping-answer.ts). A JSON body is read once, from the
 * request itself (body-once.ts), and handed to the SDK parsed. Responses carry the CORS headers.
 *
 * Security defaults: browser `Origin`s are limited to localhost, the `*.workers.dev`
 * hostname being served and a concrete `corsOptions.origin`; malformed, `null` and
 * non-http(s) origins get `403`. A factory that returns a server still serving another
 * request is refused, so one user's exchange is never attached to another's server.
 * Server-to-client requests on the stateless legacy lane fail at once. With an OAuth
 * provider in front, the verified props become `authInfo` and `getMcpAuthContext()`.
 *
 * Does not do: token verification (put `@cloudflare/workers-oauth-provider` or your own
 * auth in front), sessions, resumable streams or 2025-era push requests (use `McpAgent`).
 * `onerror` only reports; it never changes a response, and no token or props are put in
 * an error message.
 *
 * @param factory - builds a fresh server for each request (sync or async)
 * @param options - SDK v2 handler options plus the Worker options
 * @returns the handler: callable `(request, env, ctx)`, `.fetch`, `.notify`
 * @throws CodeModeError `"unsupported_option"` for SDK v1 transport options and
 *   `"invalid_option"` for a bad `route`, `legacy` or a non-function `factory`; RangeError
 *   for a `requestState.key` shorter than 32 bytes or a non-finite `requestState.ttlSeconds`
 */
export function createMcpHandler(
  factory: McpServerFactory,
  options?: CreateMcpHandlerOptions,
): StatelessMcpHandler;
/**
 * Serves one SDK v1 server instance (`McpServer` or `Server` from `@modelcontextprotocol/sdk`),
 * as older `agents` code does. It works for 2025-era clients (SDK v2 clients fall back to
 * 2025), with one `console.warn` when the handler is created. The instance is lent to one
 * request at a time, so requests to it queue.
 * @deprecated Pass a factory that builds a server per request:
 *   `createMcpHandler(() => createServer())`, ideally an SDK v2 `McpServer`.
 * @param server - the instance, built once
 * @param options - SDK v2 handler options plus the Worker options
 */
export function createMcpHandler(
  server: SdkV1Server,
  options?: CreateMcpHandlerOptions,
): StatelessMcpHandler;
export function createMcpHandler(
  factoryOrServer: McpServerFactory | SdkV1Server,
  options: CreateMcpHandlerOptions = {},
): StatelessMcpHandler {
  refuseV1TransportOptions(options);
  const factory = isSdkV1ServerInstance(factoryOrServer)
    ? sharedV1Factory(factoryOrServer)
    : factoryOrServer;
  assertFactory(factory);
  const settings = handlerSettings(options);
  const marks: RequestMarks = {
    v1OnModern: new WeakSet<Request>(),
    produced: new AsyncLocalStorage<ProducerSlot>(),
  };
  const sdk = createSdkMcpHandler(serverProducer(factory, settings, marks), {
    ...settings.sdkOptions,
    legacy: settings.legacy,
    onerror: errorReporter(settings.onerror),
  });

  // Task rounds run in the task's Durable Object through this same handler (see tasks/).
  if (settings.tasks !== undefined) {
    const { fixedAuthContext } = settings;
    registerTaskRoundServer(settings.taskName, (request, authInfo) =>
      runWithAuthContext(fixedAuthContext ?? authContextFrom(authInfo), () =>
        sdk.fetch(request, authInfo === undefined ? {} : { authInfo }),
      ),
    );
    registerLedger(settings.tasks, settings.taskName);
  }

  const serve = requestServer(settings, sdk, marks);

  const callable = (request: Request, _env: unknown, ctx: ExecutionContext) =>
    serve(request, undefined, ctx as { props?: unknown; auth?: unknown } | undefined);
  const fetch = (request: Request, requestOptions?: McpHandlerRequestOptions, ctx?: unknown) =>
    // Called as `.fetch(request, env, ctx)` by a runtime that was given the handler as an
    // export: the second argument is then `env`, not request options.
    ctx !== undefined
      ? serve(request, undefined, ctx as { props?: unknown; auth?: unknown })
      : serve(request, requestOptions, undefined);

  return Object.assign(callable, {
    fetch,
    notify: sdk.notify,
    bus: sdk.bus,
    requestState: settings.codec,
    close: () => sdk.close(),
  }) as StatelessMcpHandler;
}

/**
 * The name older `agents` releases exported the handler under.
 * @deprecated Use {@link createMcpHandler}; this alias is the same function.
 */
export const experimental_createMcpHandler = createMcpHandler;

/** The handler's options, checked (a bad route or legacy mode fails at creation), and split. */
function handlerSettings(options: CreateMcpHandlerOptions) {
  const {
    route = "/mcp",
    corsOptions = {},
    allowedHostnames,
    allowedOriginHostnames,
    legacy = "stateless",
    requestState,
    onerror,
    authContext: fixedAuthContext,
    tasks,
    transport: _transport,
    storage: _storage,
    sessionIdGenerator: _sessionIdGenerator,
    eventStore: _eventStore,
    enableJsonResponse: _enableJsonResponse,
    ...sdkOptions
  } = options;
  if (!route.startsWith("/")) {
    throw new CodeModeError(
      "invalid_option",
      `createMcpHandler: route must start with "/", got "${route}".`,
    );
  }
  if (legacy !== "stateless" && legacy !== "reject") {
    throw new CodeModeError(
      "invalid_option",
      'createMcpHandler: legacy must be "stateless" or "reject".',
    );
  }
  return {
    route,
    corsOptions,
    legacy,
    onerror,
    fixedAuthContext,
    tasks,
    /** Where task rounds are registered (see tasks/). */
    taskName: tasks?.name ?? route,
    codec: requestState === undefined ? undefined : createRequestStateSealer(requestState),
    guard: {
      ...(allowedHostnames !== undefined && { allowedHostnames }),
      ...(allowedOriginHostnames !== undefined && { allowedOriginHostnames }),
      ...(corsOptions.origin !== undefined && { corsOrigin: corsOptions.origin }),
    },
    /** The SDK v2 handler's own options, passed through. */
    sdkOptions,
  };
}

type HandlerSettings = ReturnType<typeof handlerSettings>;

/** Where the producer leaves, for the request being served, what its response needs. */
interface ProducerSlot {
  /** A named factory failure (an upstream the factory needs is unreachable). */
  error?: CodeModeError;
  /** The server it built (a batch's cancels are handed to it: cancel-watch.ts). */
  server?: unknown;
}

/** What the server producer leaves for the request being served, for its response. */
interface RequestMarks {
  /** 2026-07-28 requests that reached an SDK v1 server (answered with the 2025 revisions). */
  v1OnModern: WeakSet<Request>;
  /**
   * Where the producer leaves its server, or a named factory failure, for the request being
   * served (the SDK may hand the factory a copy of the request, so the request itself cannot be
   * the key).
   */
  produced: AsyncLocalStorage<ProducerSlot>;
}

/** The SDK's `onerror`: the user's reporter, minus our own v1 signal, never throwing. */
function errorReporter(onerror: ((error: Error) => void) | undefined): (error: Error) => void {
  return (error) => {
    if (error instanceof SdkV1OnModernRequest) return;
    try {
      onerror?.(error);
    } catch {
      // Reporting must never change the response.
    }
  };
}

/**
 * The server for one request, from the user's factory, checked and prepared for the request's
 * era: request-state verification and task support for SDK v2 servers, fail-fast server-to-client
 * requests on the legacy lane, and an SDK v1 server kept off the 2026-07-28 lane.
 */
function serverProducer(
  factory: McpServerFactory,
  { codec, tasks, taskName }: HandlerSettings,
  marks: RequestMarks,
): (ctx: McpServerFactoryContext) => Promise<McpServer | Server> {
  return async (ctx) => {
    let product: Awaited<ReturnType<McpServerFactory>>;
    try {
      product = await factory(codec === undefined ? ctx : { ...ctx, requestState: codec });
    } catch (error) {
      // An upstream the factory needs is unreachable: named to the client (see
      // upstreamUnreachableResponse), not hidden behind the SDK's 500 "Internal server error".
      const slot = marks.produced.getStore();
      if (isUnreachable(error) && slot !== undefined) slot.error = error;
      throw error;
    }
    if (typeof product !== "object" || product === null || !("connect" in product)) {
      throw new CodeModeError(
        "invalid_server",
        "createMcpHandler: the factory must return an McpServer or Server.",
      );
    }
    assertNotServing(product);
    const slot = marks.produced.getStore();
    if (slot !== undefined) slot.server = product;
    if (isSdkV2Server(product)) {
      if (codec !== undefined) installRequestStateVerify(product, codec.verify);
    } else {
      // A lease of a shared instance was warned about once, when the handler was created.
      if (!isSharedV1Lease(product)) warnSdkV1Once();
      if (ctx.era === "modern") {
        if (ctx.requestInfo !== undefined) marks.v1OnModern.add(ctx.requestInfo);
        throw new SdkV1OnModernRequest();
      }
    }
    if (tasks !== undefined && isSdkV2Server(product)) {
      if (ctx.era === "modern") installTaskSupport(product, tasks, taskName, ctx.requestInfo);
      else installLegacyTaskSupport(product, tasks, taskName);
    }
    if (ctx.era === "legacy") failFastServerToClientRequests(product);
    // SDK v1 servers reach here only for legacy requests, where the SDK needs just
    // `connect`/`close`, which v1 servers implement with the same contract.
    return product as McpServer | Server;
  };
}

/**
 * One request through the handler: the exact route, Host/Origin guards, CORS and preflight,
 * the auth context, 2025-era task requests, then the SDK; its answer fixed up where an SDK v1
 * server met a 2026-07-28 request or the factory's upstream was unreachable.
 */
function requestServer(
  settings: HandlerSettings,
  sdk: ReturnType<typeof createSdkMcpHandler>,
  marks: RequestMarks,
) {
  const { route, corsOptions, guard, tasks, legacy, fixedAuthContext } = settings;
  const maxBodyBytes = settings.sdkOptions.maxRequestBodySize;
  return async (
    request: Request,
    requestOptions: McpHandlerRequestOptions | undefined,
    workerCtx: { props?: unknown; auth?: unknown } | undefined,
  ): Promise<Response> => {
    if (urlParts(request.url).pathname !== route) {
      return withCors(new Response("Not Found\n", { status: 404 }), corsOptions);
    }
    const rejected = guardRequest(request, guard);
    if (rejected !== undefined) return withCors(rejected, corsOptions);
    if (request.method.toUpperCase() === "OPTIONS") return preflightResponse(corsOptions);
    // The client is gone: building a server (the factory may have side effects) is wasted.
    // GET and DELETE still get their 405 from the legacy lane, as agents answers them.
    if (request.signal?.aborted === true && request.method.toUpperCase() === "POST") {
      return withCors(new Response(null, { status: CLIENT_CLOSED_REQUEST }), corsOptions);
    }

    const authInfo =
      requestOptions?.authInfo ??
      authInfoFromOAuthProps(request, workerCtx?.props, workerCtx?.auth);
    // `authContext` overrides what getMcpAuthContext() returns (as agents' option does).
    const authContext = fixedAuthContext ?? authContextFrom(authInfo);
    // The body, read once for the task check, the ping answer and the SDK (body-once.ts).
    const once = await readBodyOnce(request, maxBodyBytes, requestOptions?.parsedBody);
    if (once.refused !== undefined) return withCors(once.refused, corsOptions);
    const read = once.request;
    // 2025-11-25 tasks/* and answers to a task's questions: served from the task object; any
    // other request's body goes on to the SDK as it was read.
    const legacyTasks =
      tasks !== undefined && legacy === "stateless"
        ? await serveLegacyTaskRequest(tasks, read, authInfo, once.parsedBody)
        : { parsedBody: once.parsedBody };
    if (legacyTasks.answered !== undefined) return withCors(legacyTasks.answered, corsOptions);
    const { parsedBody } = legacyTasks;
    // A plain 2025-era ping needs no server: answered here, as the SDK would (ping-answer.ts).
    // Only with `tasks` (as before the body was read once): without, a ping still reaches the
    // factory, whose server checks (a server still serving is refused) callers may rely on.
    const pong =
      legacy === "stateless" && tasks !== undefined
        ? pingAnswer(read, parsedBody, corsHeaderPairs(corsOptions))
        : undefined;
    if (pong !== undefined) return pong;
    const sdkOptionsForRequest: McpHandlerRequestOptions = {
      ...(authInfo !== undefined && { authInfo }),
      ...(parsedBody !== undefined && { parsedBody }),
    };
    // A cancel reaches its request through the board (cancel-watch.ts): this POST's server
    // knows no request but its own.
    const { forward, watch } = watchedRequest(read, parsedBody, authInfo);
    const produced: ProducerSlot = {};
    let response: Response;
    try {
      response = await marks.produced.run(produced, () =>
        runWithAuthContext(authContext, () => sdk.fetch(forward, sdkOptionsForRequest)),
      );
    } catch (error) {
      watch?.stop();
      throw error;
    }
    watch?.served(produced.server);
    if (marks.v1OnModern.has(forward)) response = await legacyOnlyResponse(response);
    if (produced.error !== undefined && response.status === 500)
      response = await upstreamUnreachableResponse(response, produced.error);
    const answered = withCors(withAuthContextBody(response, authContext), corsOptions);
    return watch === undefined ? answered : stopWhenSent(answered, watch.stop);
  };
}

/**
 * The answer to a 2026-07-28 request served by an SDK v1 server: the unsupported-version
 * error listing the 2025 revisions, so negotiating clients fall back to `initialize`.
 * The JSON-RPC id is taken from the SDK's own error answer, which already echoes it.
 */
async function legacyOnlyResponse(sdkResponse: Response): Promise<Response> {
  const body = (await sdkResponse.json().catch(() => ({}))) as { id?: unknown };
  const supported = SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < "2026-07-28");
  return Response.json(
    {
      jsonrpc: "2.0",
      id: body.id ?? null,
      error: {
        code: ProtocolErrorCode.UnsupportedProtocolVersion,
        message:
          "Unsupported protocol version: this endpoint serves an SDK v1 server, which speaks 2025-era MCP only.",
        data: { supported, requested: "2026-07-28" },
      },
    },
    { status: 400 },
  );
}

/** A factory's `upstream_unreachable` failure (its message names the host and the reason). */
function isUnreachable(error: unknown): error is CodeModeError {
  return error instanceof CodeModeError && error.code === "upstream_unreachable";
}

/**
 * The answer to a request whose server could not be built because an upstream it wraps is
 * unreachable: a JSON-RPC error for the request's id, with the error's message (host, reason,
 * what to check; never configured headers) and `data.code` naming it, at HTTP 200 so MCP
 * clients show that message, as they do for any JSON-RPC error, instead of an HTTP failure.
 * The id is taken from the SDK's own error answer, which already echoes it.
 */
async function upstreamUnreachableResponse(
  sdkResponse: Response,
  error: CodeModeError,
): Promise<Response> {
  const body = (await sdkResponse.json().catch(() => ({}))) as { id?: unknown };
  const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
  return jsonRpcError(200, PROTOCOL_CODES.internalError, error.message, id, { code: error.code });
}

/** Refuses a server instance given where a factory belongs, with the one-line fix. */
function assertFactory(factory: unknown): asserts factory is McpServerFactory {
  if (typeof factory === "function") return;
  throw new CodeModeError(
    "invalid_option",
    "createMcpHandler takes a factory that builds a new server per request, not a server instance: " +
      "createMcpHandler(() => createServer()). One instance cannot serve concurrent requests.",
  );
}
