/**
 * The tasks extension on the servers of a `createMcpHandler` with the `tasks` option: the
 * capability, `tasks/get`, `tasks/update` and `tasks/cancel`, and the `tools/call` seam that
 * turns a call of a task-supporting tool into a task.
 *
 * Why the seam sits where it does: the SDK v2 validates a `tools/call` result against the
 * 2026-07-28 `CallToolResult` schema inside the handler wrapper it installs, which strips every
 * task field (`taskId`, `status`, `ttlMs`, ...). The tools/call entry is therefore wrapped once
 * more, outside the SDK's own wrapper, and answers task creation there; the SDK's encoder then
 * passes `resultType: "task"` through (tools/call results may carry any `resultType`). Ordinary
 * calls go through the SDK's wrapper unchanged.
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type McpServer,
  type Server,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { callerIdentity } from "../common/caller-identity";
import { protocolOf } from "../common/server-kind";
import { limitsOf, registerTaskPlaces, tooManyTasks, type TaskLimits } from "./task-places";
import type { TaskInit } from "./task-record";
import type { McpTaskStore } from "./task-store";
import { taskRoundSignal } from "./task-rounds";
import { taskSupportOf } from "./task-tools";
import { TASKS_EXTENSION_ID, createTaskResult, declaresTasks, type TaskView } from "./task-wire";

/** The `tasks` option of `createMcpHandler`. */
export interface TasksOptions {
  /**
   * The task Durable Object namespace (class {@link McpTaskStore}), read per request, e.g.
   * `() => env.MCP_TASKS` with `import { env } from "cloudflare:workers"`.
   */
  namespace: () => DurableObjectNamespace<McpTaskStore>;
  /** How long a task is kept after creation, in ms (its `ttlMs`). Default one hour. */
  ttlMs?: number;
  /** The poll interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** The name task objects find this handler by. Default: the handler's route. */
  name?: string;
  /**
   * How many tasks may run at once, per caller and in total (default 16 and 64). A call past a
   * bound is refused at once (JSON-RPC -32000 naming the bound); see task-places.ts.
   */
  limits?: TaskLimits;
  /**
   * Who a new task counts as in the per-caller bound, read while the creating request is served
   * ("" or absent: its owner). Owners tell only signed-in callers apart; the app passes the
   * caller it places runs for (src/app/placement-caller.ts), so each local process, or each
   * client address, has its own share of the bound. Never who may read or cancel the task.
   */
  countAs?: () => string;
}

type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;

const TaskIdParams = z.looseObject({ taskId: z.string() });

/**
 * Installs the tasks extension on one server about to serve one 2026-07-28 request.
 * @param server - the factory's product (SDK v2)
 * @param options - the handler's `tasks` option
 * @param name - the handler's task name
 * @param requestInfo - the HTTP request being served (task rounds are recognised by it)
 */
export function installTaskSupport(
  server: McpServer | Server,
  options: TasksOptions,
  name: string,
  requestInfo: Request | undefined,
): void {
  const protocol = protocolOf(server) as unknown as Server;
  // The SDK's handler table (2.4.0, pinned): the one place a tools/call answer can bypass the
  // result schema that strips task fields.
  const handlers = (protocol as unknown as { _requestHandlers: Map<string, Handler> })
    ._requestHandlers;
  const ttlMs = options.ttlMs ?? 3_600_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  protocol.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } });

  const stub = (taskId: string) => taskStub(options, taskId);
  const gate = () => {
    if (!declaresTasks(protocol.getClientCapabilities())) throw missingTasks();
  };
  const ownerOf = (ctx: unknown) => ownerFrom(ctx);
  const unknownTask = (taskId: string) =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown task "${taskId}" (it may have expired).`,
    );

  protocol.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params, ctx) => {
    gate();
    const task = await stub(params.taskId).get(ownerOf(ctx));
    if (task === null) throw unknownTask(params.taskId);
    return task as never;
  });
  protocol.setRequestHandler("tasks/update", { params: TaskIdParams }, async (params, ctx) => {
    gate();
    // The SDK lifts `inputResponses` out of every request's params into the context.
    const responses = ctx.mcpReq.inputResponses ?? params.inputResponses;
    if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "tasks/update needs inputResponses: an object keyed by the ids of the task's inputRequests.",
      );
    }
    const found = await stub(params.taskId).update(
      ownerOf(ctx),
      responses as Record<string, unknown>,
    );
    if (found === false) throw unknownTask(params.taskId);
    if (found !== true) throw tooManyTasks(found);
    return {} as never;
  });
  protocol.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params, ctx) => {
    gate();
    const found = await stub(params.taskId).cancel(ownerOf(ctx));
    if (!found) throw unknownTask(params.taskId);
    return {} as never;
  });

  const callTool = handlers.get("tools/call");
  if (callTool === undefined) return;
  const roundSignal = taskRoundSignal(requestInfo);
  handlers.set("tools/call", async (request, ctx) => {
    if (roundSignal !== undefined) return callTool(request, withSignal(ctx, roundSignal));
    const params = (
      request as {
        params: { name: string; arguments?: Record<string, unknown> };
      }
    ).params;
    const mark = taskSupportOf(server, params.name);
    if (mark === undefined || mark.support === "forbidden") return callTool(request, ctx);
    if (!declaresTasks(protocol.getClientCapabilities())) {
      if (mark.support === "required") throw missingTasks();
      return callTool(request, ctx);
    }
    const mcpReq = (
      ctx as {
        mcpReq: {
          inputResponses?: Record<string, unknown>;
          requestState?: () => unknown;
        };
      }
    ).mcpReq;
    // An input-first tool asks its questions synchronously; the answered call becomes the task.
    if (mark.inputFirst === true && mcpReq.inputResponses === undefined)
      return callTool(request, ctx);
    const state = mcpReq.requestState?.();
    const taskId = crypto.randomUUID();
    const authInfo = (ctx as { http?: { authInfo?: unknown } }).http?.authInfo;
    const init: TaskInit = {
      taskId,
      handler: name,
      owner: ownerOf(ctx),
      call: {
        name: params.name,
        ...(params.arguments !== undefined && { arguments: params.arguments }),
        ...(mcpReq.inputResponses !== undefined && {
          inputResponses: mcpReq.inputResponses,
        }),
        ...(typeof state === "string" && { requestState: state }),
        clientCapabilities: stripTasks(protocol.getClientCapabilities()),
        ...(protocol.getClientVersion() !== undefined && {
          clientInfo: protocol.getClientVersion() as unknown as Record<string, unknown>,
        }),
      },
      ...(authInfo !== undefined && { authInfo: JSON.stringify(authInfo) }),
      ttlMs,
      pollIntervalMs,
    };
    return createTaskResult(await createWithPlace(options, init, stub(taskId)));
  });
}

function missingTasks(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    `This request needs the ${TASKS_EXTENSION_ID} extension: declare it in the client's capabilities (capabilities.extensions).`,
  );
}

/**
 * The task object of `taskId` (named by the id, so any isolate reaches the same one).
 * @param options - the handler's `tasks` option
 * @param taskId - the task's id
 */
export function taskStub(options: TasksOptions, taskId: string): DurableObjectStub<McpTaskStore> {
  const namespace = options.namespace();
  return namespace.get(namespace.idFromName(taskId));
}

/**
 * The ledger object of a handler: the bound on its running tasks (task-places.ts), one object
 * of the task namespace named `places:<name>` (task objects are named by UUIDs).
 * @param options - the handler's `tasks` option
 * @param name - the handler's task name
 */
export function ledgerOf(options: TasksOptions, name: string): DurableObjectStub<McpTaskStore> {
  const namespace = options.namespace();
  return namespace.get(namespace.idFromName(`places:${name}`));
}

/**
 * Makes a handler's ledger and limits reachable from its task objects in this isolate.
 * @param options - the handler's `tasks` option
 * @param name - the handler's task name
 */
export function registerLedger(options: TasksOptions, name: string): void {
  registerTaskPlaces(name, () => ({
    ledger: ledgerOf(options, name),
    ...limitsOf(options.limits),
  }));
}

/**
 * Creates a task only once it has a place: refused at once past a bound, and the place given
 * back when the task object could not be created.
 * @param options - the handler's `tasks` option
 * @param init - the task to create (its handler and owner say where it counts, or the caller
 *   `options.countAs` names now)
 * @param stub - the task's object
 */
export async function createWithPlace(
  options: TasksOptions,
  init: TaskInit,
  stub: DurableObjectStub<McpTaskStore>,
): Promise<TaskView> {
  const ledger = ledgerOf(options, init.handler);
  const { perCaller, total } = limitsOf(options.limits);
  // Read while the creating request is served (the caller is the request's); kept in the
  // record for the places its resumed rounds take.
  const counted = options.countAs?.() ?? "";
  const task = counted !== "" && counted !== init.owner ? { ...init, countedAs: counted } : init;
  const refusal = await ledger.takePlace(
    task.taskId,
    task.countedAs ?? task.owner,
    perCaller,
    total,
  );
  if (refusal !== null) throw tooManyTasks(refusal);
  try {
    return await stub.create(task);
  } catch (error) {
    await ledger.givePlace(init.taskId).catch(() => {});
    throw error;
  }
}

/**
 * Who owns a task: the caller's identity ({@link callerIdentity}: the signed-in user, else the
 * authenticated client, else "" when the endpoint is open).
 * @param ctx - a request handler's context (its `http.authInfo`)
 */
export function ownerFrom(ctx: unknown): string {
  return callerIdentity((ctx as { http?: { authInfo?: AuthInfo } }).http?.authInfo);
}

/**
 * The caller's capabilities without the tasks extension, so a round never becomes a task.
 * @param capabilities - the client capabilities of the creating request
 */
export function stripTasks(capabilities: unknown): Record<string, unknown> {
  const caps = { ...(capabilities as Record<string, unknown> | undefined) };
  const extensions = caps.extensions as Record<string, unknown> | undefined;
  if (extensions !== undefined) {
    const { [TASKS_EXTENSION_ID]: _tasks, ...rest } = extensions;
    caps.extensions = rest;
  }
  return caps;
}

/**
 * The handler context with the task's cancellation joined to the request's own signal. The
 * context belongs to this one request, so its `signal` is replaced in place (a wrapper object
 * would lose the context's other fields wherever a handler copies it with a spread).
 */
function withSignal(ctx: unknown, signal: AbortSignal): unknown {
  const mcpReq = (ctx as { mcpReq: { signal: AbortSignal } }).mcpReq;
  Object.defineProperty(mcpReq, "signal", {
    value: AbortSignal.any([mcpReq.signal, signal]),
    enumerable: true,
    configurable: true,
    writable: true,
  });
  return ctx;
}
