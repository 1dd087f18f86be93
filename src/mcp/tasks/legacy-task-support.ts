/**
 * Tasks for 2025-11-25 clients on the stateless legacy lane of a `createMcpHandler` with the
 * `tasks` option (and of `createLegacyMcpHandler` with its `tasks` option): the server side of a task-augmented `tools/call` (`params.task`), which
 * creates the same task object as the 2026-07-28 lane and answers `CreateTaskResult`
 * (`{ task }`), plus the `capabilities.tasks` and `execution.taskSupport` a 2025 client reads
 * to know it may ask. `tasks/get`, `tasks/result` and `tasks/cancel` need no server from the
 * factory and are answered in front of the SDK (legacy-task-requests.ts).
 *
 * The task's rounds still run as 2026-07-28 calls inside the task object, so the run is the
 * same whichever era asked for it; only the wire in front of it differs.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { protocolOf, type AnyMcpServer } from "../common/server-kind";
import type { TaskInit } from "./task-record";
import { createWithPlace, ownerFrom, taskStub, type TasksOptions } from "./task-support";
import { taskSupportOf } from "./task-tools";
import { LEGACY_TASKS_CAPABILITY, legacyTask } from "./legacy-task-wire";

type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;

/** The shortest TTL a client may ask for: a task must live long enough to be polled once. */
const MIN_TTL_MS = 1_000;

/**
 * A 2025 client cannot be asked which input modes it supports (the stateless lane never sees
 * its `initialize`): a task's rounds may ask form elicitations, which the `tasks/result`
 * stream relays; a client that cannot answer one answers with an error, read as "cancel".
 */
const ROUND_CAPABILITIES = { elicitation: { form: {} } };

/**
 * Installs 2025-11-25 task creation on one server about to serve 2025-era requests (before it
 * connects: capabilities cannot change after).
 * @param server - an SDK v2 server (the factory's product) or, for `createLegacyMcpHandler`, v1
 * @param options - the handler's `tasks` option
 * @param name - the handler's task name (the task object runs rounds through it)
 */
export function installLegacyTaskSupport(
  server: AnyMcpServer,
  options: TasksOptions,
  name: string,
): void {
  const protocol = protocolOf(server) as unknown as Server;
  // The SDK's handler table (2.4.0, pinned), as on the 2026 lane (task-support.ts).
  const handlers = (protocol as unknown as { _requestHandlers: Map<string, Handler> })
    ._requestHandlers;
  protocol.registerCapabilities({ tasks: LEGACY_TASKS_CAPABILITY } as never);
  const ttlMs = options.ttlMs ?? 3_600_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;

  const listTools = handlers.get("tools/list");
  if (listTools !== undefined) {
    // A 2025 client asks for a task only for tools whose listing says they support one.
    handlers.set("tools/list", async (request, ctx) => {
      const listed = (await listTools(request, ctx)) as { tools?: { name: string }[] };
      if (!Array.isArray(listed.tools)) return listed;
      return {
        ...listed,
        tools: listed.tools.map((tool) => {
          const mark = taskSupportOf(server as never, tool.name);
          return mark === undefined ? tool : { ...tool, execution: { taskSupport: mark.support } };
        }),
      };
    });
  }

  const callTool = handlers.get("tools/call");
  if (callTool === undefined) return;
  handlers.set("tools/call", async (request, ctx) => {
    const params = (
      request as {
        params: { name: string; arguments?: Record<string, unknown>; task?: { ttl?: unknown } };
      }
    ).params;
    const mark = taskSupportOf(server as never, params.name);
    const support = mark?.support ?? "forbidden";
    if (params.task === undefined) {
      if (support === "required") {
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool "${params.name}" runs only as a task: call it with params.task (e.g. { "ttl": 60000 }).`,
        );
      }
      return callTool(request, ctx);
    }
    if (support === "forbidden") {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool "${params.name}" does not run as a task: call it without params.task.`,
      );
    }
    const requested = typeof params.task.ttl === "number" ? params.task.ttl : ttlMs;
    const taskId = crypto.randomUUID();
    const authInfo = (ctx as { http?: { authInfo?: unknown } }).http?.authInfo;
    const init: TaskInit = {
      taskId,
      handler: name,
      owner: ownerFrom(ctx),
      call: {
        name: params.name,
        ...(params.arguments !== undefined && { arguments: params.arguments }),
        clientCapabilities: ROUND_CAPABILITIES,
      },
      ...(authInfo !== undefined && { authInfo: JSON.stringify(authInfo) }),
      // The receiver may shorten a requested TTL (2025-11-25); ours never outlives the option.
      ttlMs: Math.min(ttlMs, Math.max(MIN_TTL_MS, Math.floor(requested))),
      pollIntervalMs,
    };
    return { task: legacyTask(await createWithPlace(options, init, taskStub(options, taskId))) };
  });
}
