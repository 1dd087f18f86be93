/**
 * How a task's run executes: each round is one stateless 2026-07-28 `tools/call` served by the
 * very handler that created the task, called in-process from the task's Durable Object (no
 * network hop, no guards: the caller was checked when the task was created). Between rounds
 * the run is nothing but rows in SQLite (arguments, the pending `inputRequests`, the sealed
 * `requestState`), so a task waiting for input survives eviction and restarts.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { PROTOCOL_CODES } from "../../errors";

/** Serves one in-process request as the handler that registered it, with this caller identity. */
export type TaskRoundServer = (
  request: Request,
  authInfo: AuthInfo | undefined,
) => Promise<Response>;

const servers = new Map<string, TaskRoundServer>();
const rounds = new WeakMap<Request, AbortSignal>();

/**
 * Makes a handler reachable from task objects in this isolate under `name` (its route unless
 * configured). A later registration under the same name replaces the earlier one.
 */
export function registerTaskRoundServer(name: string, server: TaskRoundServer): void {
  servers.set(name, server);
}

/** The handler registered under `name` in this isolate, if any. */
export function taskRoundServer(name: string): TaskRoundServer | undefined {
  return servers.get(name);
}

/**
 * The cancellation signal of a task round, when `request` is one (the tools/call wrapper runs
 * a round's tool directly instead of creating another task, and ends it on cancel).
 */
export function taskRoundSignal(request: Request | undefined): AbortSignal | undefined {
  return request === undefined ? undefined : rounds.get(request);
}

/** What one round of a task's tool call ended with. */
export type RoundOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | {
      kind: "input";
      inputRequests: Record<string, unknown>;
      requestState?: string;
    }
  | { kind: "error"; error: { code: number; message: string; data?: unknown } };

/** One round's call: the tool, its arguments, the answers and state of the previous round. */
export interface RoundCall {
  name: string;
  arguments?: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  clientCapabilities?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
}

/**
 * Runs one round through `server` and reads its answer (JSON or an SSE stream; progress
 * notifications on the stream are reported to `onProgress` as they arrive).
 * @param server - the registered handler
 * @param call - what to call
 * @param authInfo - the identity of the client that created the task
 * @param signal - aborted when the task is cancelled
 * @param onProgress - receives a short text for each progress notification
 */
export async function runRound(
  server: TaskRoundServer,
  call: RoundCall,
  authInfo: AuthInfo | undefined,
  signal: AbortSignal,
  onProgress: (message: string) => void,
): Promise<RoundOutcome> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: call.name,
      arguments: call.arguments ?? {},
      ...(call.inputResponses !== undefined && {
        inputResponses: call.inputResponses,
      }),
      ...(call.requestState !== undefined && {
        requestState: call.requestState,
      }),
      _meta: {
        progressToken: "task",
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": call.clientCapabilities ?? {},
        "io.modelcontextprotocol/clientInfo": call.clientInfo ?? {
          name: "code-mode-mcp-task",
          version: "1.0.0",
        },
      },
    },
  };
  const request = new Request("http://localhost/task-round", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": call.name,
    },
    body: JSON.stringify(body),
  });
  rounds.set(request, signal);
  const response = await server(request, authInfo);
  const message = await readAnswer(response, onProgress);
  if (message === undefined) {
    return {
      kind: "error",
      error: {
        code: PROTOCOL_CODES.internalError,
        message: `The tool call answered HTTP ${response.status} without a JSON-RPC response.`,
      },
    };
  }
  if (message.error !== undefined) return { kind: "error", error: message.error };
  const result = (message.result ?? {}) as Record<string, unknown>;
  if (result.resultType === "input_required") {
    const state = result.requestState;
    return {
      kind: "input",
      inputRequests: (result.inputRequests ?? {}) as Record<string, unknown>,
      ...(typeof state === "string" && { requestState: state }),
    };
  }
  return { kind: "result", result };
}

interface RpcMessage {
  id?: unknown;
  method?: string;
  params?: { progress?: number; total?: number; message?: string };
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

async function readAnswer(
  response: Response,
  onProgress: (message: string) => void,
): Promise<RpcMessage | undefined> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const parsed = (await response.json().catch(() => undefined)) as RpcMessage | undefined;
    return parsed !== undefined && parsed.id !== undefined ? parsed : undefined;
  }
  if (response.body === null) return undefined;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data === "") continue;
      const message = JSON.parse(data) as RpcMessage;
      if (message.method === "notifications/progress") onProgress(progressText(message.params));
      else if (message.id !== undefined && message.method === undefined) {
        void reader.cancel().catch(() => {});
        return message;
      }
    }
  }
}

function progressText(params: RpcMessage["params"]): string {
  const of = params?.total === undefined ? "" : `/${params.total}`;
  const step = params?.progress === undefined ? "" : `${params.progress}${of}`;
  return [step, params?.message].filter((part) => part !== undefined && part !== "").join(": ");
}
