/**
 * The 2025-11-25 task requests (`tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`) and
 * the answers to a task's input requests, served in front of the SDK on the stateless legacy
 * lane of a `createMcpHandler` with the `tasks` option.
 *
 * Why in front of the SDK: they need no server from the factory (the task object holds
 * everything), and `tasks/result` must do what the stateless lane cannot: stay open while the
 * run goes on and relay the run's questions. It answers an SSE stream that polls the task
 * object; when the task needs input it sends the round's input requests (elicitations) on that
 * stream, tagged with the related-task `_meta`, as 2025-11-25 prescribes. The client POSTs its
 * answers as JSON-RPC responses; those may reach any isolate, so their ids name the task
 * (legacy-task-wire.ts) and they go straight to the task object, which starts the next round.
 * The stream sees the task move on and ends with the tool's result.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { jsonRpcError, PROTOCOL_CODES, type ProtocolCode } from "../../errors";
import type { McpTaskStore } from "./task-store";
import { callerIdentity } from "../common/caller-identity";
import { concatBytes } from "../common/concat-bytes";
import { exceedsJsonShape, jsonShape } from "../common/json-shape";
import { taskStub, type TasksOptions } from "./task-support";
import { tooManyTasks } from "./task-places";
import { TERMINAL_STATUSES, type TaskView } from "./task-wire";
import {
  inputRequestId,
  legacyTask,
  parseInputRequestId,
  RELATED_TASK_META_KEY,
} from "./legacy-task-wire";

type Id = string | number;
type Polled = { task: TaskView; inputRound: number } | null;

const TASK_METHODS = new Set(["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);
/**
 * Task requests and answers are small; a larger body is left unread here for the SDK, which
 * applies its own size limit (so this layer never buffers a huge body first).
 */
const MAX_TASK_BODY = 65_536;
/** First wait of a `tasks/result` stream between polls; it doubles up to the task's interval. */
const FIRST_POLL_MS = 25;
/** An idle `tasks/result` stream sends a comment this often, so proxies keep it open. */
const KEEP_ALIVE_MS = 15_000;

/**
 * What {@link serveLegacyTaskRequest} made of a request: its answer, or none and the body as
 * it read it (undefined when it read none), for the SDK to take as its `parsedBody` instead of
 * reading and parsing the body a second time (~2 % of the host's thread under load, 2026-12-05).
 */
export type LegacyTaskOutcome =
  | { answered: Response; parsedBody?: undefined }
  | { answered?: undefined; parsedBody: unknown };

/**
 * Serves a 2025-era task request or input answer; anything else is the SDK's to serve. Only
 * claim-less POSTs without the 2026 `Mcp-Method` header are read.
 * @param options - the handler's `tasks` option
 * @param request - the HTTP request (its body is read from a clone)
 * @param authInfo - the caller (its user, else its client, owns the task: `callerIdentity`)
 * @param parsedBody - the body when a framework already read it
 */
export async function serveLegacyTaskRequest(
  options: TasksOptions,
  request: Request,
  authInfo: AuthInfo | undefined,
  parsedBody?: unknown,
): Promise<LegacyTaskOutcome> {
  if (request.method.toUpperCase() !== "POST" || request.headers.has("mcp-method"))
    return { parsedBody };
  if (request.headers.get("mcp-protocol-version")?.startsWith("2026") === true)
    return { parsedBody };
  const body = parsedBody ?? (request.bodyUsed ? undefined : await smallJson(request));
  const answered = await serveMessage(options, request, authInfo, body);
  return answered === undefined ? { parsedBody: body } : { answered };
}

/** The answer to a 2025-era task request or input answer, or undefined for anything else. */
async function serveMessage(
  options: TasksOptions,
  request: Request,
  authInfo: AuthInfo | undefined,
  body: unknown,
): Promise<Response | undefined> {
  const message = body as Record<string, unknown> | undefined;
  if (typeof message !== "object" || message === null || Array.isArray(message)) return;
  const id = message.id;
  if (typeof id !== "string" && typeof id !== "number") return;
  const owner = callerIdentity(authInfo);
  if (typeof message.method === "string") {
    if (!TASK_METHODS.has(message.method)) return;
    // The SDK's own routing decision, so a 2026 request is never answered with the 2025 wire.
    if (!(await isLegacyRequest(request, message))) return;
    const params = (message.params ?? {}) as { taskId?: unknown };
    if (message.method === "tasks/list") {
      return rpcError(
        id,
        PROTOCOL_CODES.methodNotFound,
        "tasks/list is not offered: this endpoint keeps no session to scope a listing to. Keep the taskId that tools/call returned and use tasks/get.",
      );
    }
    if (typeof params.taskId !== "string") {
      return rpcError(id, PROTOCOL_CODES.invalidParams, `${message.method} needs params.taskId.`);
    }
    return serveTaskMethod(message.method, id, params.taskId, owner, options, request.signal);
  }
  const input = parseInputRequestId(id);
  if (input === undefined || !("result" in message || "error" in message)) return;
  // A client that could not ask (an error instead of an answer) declines the question.
  const answer = "result" in message ? message.result : { action: "cancel" };
  const found = await taskStub(options, input.taskId).update(
    owner,
    { [input.key]: answer },
    input.inputRound,
  );
  if (found === false) {
    return jsonRpcError(404, PROTOCOL_CODES.invalidParams, unknownTask(input.taskId), null);
  }
  if (found !== true) {
    // The answer would resume the run past the bound on running tasks: nothing was applied.
    return jsonRpcError(429, PROTOCOL_CODES.serverError, tooManyTasks(found).message, null);
  }
  return new Response(null, { status: 202 });
}

/**
 * The body as JSON, read from a clone, or undefined when it is not JSON, over the limit or past
 * the shape limits (the transport then reads the body itself and answers the parse error, its
 * size limit or the shape refusal).
 */
async function smallJson(request: Request): Promise<unknown> {
  const body = request.clone().body;
  if (body === null) return undefined;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_TASK_BODY) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const text = new TextDecoder().decode(concatBytes(chunks, size));
  // Its shape before its parse, as every lane checks it (common/json-shape.ts): 64 KiB still
  // nests 32,000 levels. Past a limit it is left unparsed for the transport, which refuses it.
  if (exceedsJsonShape(jsonShape(text)) !== undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function serveTaskMethod(
  method: string,
  id: Id,
  taskId: string,
  owner: string,
  options: TasksOptions,
  signal: AbortSignal,
): Promise<Response> {
  const stub = taskStub(options, taskId);
  const polled = (await stub.poll(owner)) as Polled;
  if (polled === null) return rpcError(id, PROTOCOL_CODES.invalidParams, unknownTask(taskId));
  const terminal = TERMINAL_STATUSES.includes(polled.task.status);
  if (method === "tasks/get") return Response.json(rpcMessage(id, legacyTask(polled.task)));
  if (method === "tasks/cancel") {
    if (terminal) {
      return rpcError(
        id,
        PROTOCOL_CODES.invalidParams,
        `Cannot cancel task ${taskId}: it is already ${polled.task.status}.`,
      );
    }
    await stub.cancel(owner);
    const after = (await stub.poll(owner)) as Polled;
    if (after === null) return rpcError(id, PROTOCOL_CODES.invalidParams, unknownTask(taskId));
    return Response.json(rpcMessage(id, legacyTask(after.task)));
  }
  if (terminal) return Response.json(finalMessage(id, polled.task));
  return resultStream(id, taskId, owner, stub, polled, signal);
}

/** The SSE answer of a `tasks/result` for a live task (see the module comment). */
function resultStream(
  id: Id,
  taskId: string,
  owner: string,
  stub: DurableObjectStub<McpTaskStore>,
  first: Polled,
  signal: AbortSignal,
): Response {
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  // The client left (stream cancelled or request aborted): stop polling.
  const gone = AbortSignal.any([signal, closedSignal(writer)]);
  let lastWrite = Date.now();
  const write = async (text: string) => {
    lastWrite = Date.now();
    await writer.write(encoder.encode(text));
  };
  const send = (message: unknown) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

  void (async () => {
    let polled = first;
    let asked = 0;
    let delay = FIRST_POLL_MS;
    try {
      while (!gone.aborted) {
        if (polled === null) {
          await send(errorMessage(id, PROTOCOL_CODES.invalidParams, unknownTask(taskId)));
          return;
        }
        const { task, inputRound } = polled;
        if (TERMINAL_STATUSES.includes(task.status)) {
          await send(finalMessage(id, task));
          return;
        }
        if (task.status === "input_required" && inputRound > asked) {
          for (const [key, ask] of Object.entries(task.inputRequests ?? {})) {
            await send(inputMessage(taskId, inputRound, key, ask));
          }
          asked = inputRound;
          delay = FIRST_POLL_MS;
        }
        if (Date.now() - lastWrite >= KEEP_ALIVE_MS) await write(": keep-alive\n\n");
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, Math.max(FIRST_POLL_MS, task.pollIntervalMs));
        if (!gone.aborted) polled = (await stub.poll(owner)) as Polled;
      }
    } catch {
      // The client went away mid-write, or the task object failed: the stream just ends; the
      // task itself is unaffected and tasks/result can be asked again.
    } finally {
      await writer.close().catch(() => {});
    }
  })();
  return new Response(readable, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Aborted when the stream's reader goes away (a write can then no longer succeed). */
function closedSignal(writer: WritableStreamDefaultWriter<Uint8Array>): AbortSignal {
  const closed = new AbortController();
  writer.closed.catch(() => closed.abort());
  return closed.signal;
}

/** An input request of the task, as a 2025 server-to-client request tied to the task. */
function inputMessage(taskId: string, inputRound: number, key: string, ask: unknown): unknown {
  const { method, params } = ask as { method?: string; params?: Record<string, unknown> };
  const meta = params?._meta as Record<string, unknown> | undefined;
  return {
    jsonrpc: "2.0",
    id: inputRequestId(taskId, inputRound, key),
    method,
    params: { ...params, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } },
  };
}

/** The answer of `tasks/result` for a terminal task: the tool's result, or its error. */
function finalMessage(id: Id, task: TaskView): unknown {
  if (task.status === "failed") {
    const error = task.error ?? { code: PROTOCOL_CODES.internalError, message: "The task failed." };
    return { jsonrpc: "2.0", id, error };
  }
  if (task.status === "cancelled" || task.result === undefined) {
    return errorMessage(
      id,
      PROTOCOL_CODES.invalidParams,
      `Task ${task.taskId} was ${task.status}; it has no result.`,
    );
  }
  // The 2026 round's `resultType` is not part of a 2025 CallToolResult.
  const { resultType: _resultType, ...result } = task.result;
  const meta = result._meta as Record<string, unknown> | undefined;
  return rpcMessage(id, {
    ...result,
    _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
  });
}

function unknownTask(taskId: string): string {
  return `Unknown task "${taskId}" (it may have expired, or belongs to another client).`;
}

function rpcMessage(id: Id, result: unknown): unknown {
  return { jsonrpc: "2.0", id, result };
}

function errorMessage(id: Id, code: number, message: string): unknown {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function rpcError(id: Id, code: ProtocolCode, message: string): Response {
  return jsonRpcError(200, code, message, id);
}
