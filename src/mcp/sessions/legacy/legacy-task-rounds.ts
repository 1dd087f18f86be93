/**
 * How a task created through `createLegacyMcpHandler` runs: the task object (McpTaskStore)
 * calls the registered round server with a 2026-07-28 `tools/call`; this one answers it by
 * building a fresh server from the `tasks.server` factory and serving it a 2025-11-25 session
 * in-process over our own {@link WorkerTransport} (`initialize`, then the plain `tools/call`).
 * The server can be SDK v1 or v2: it sees an ordinary 2025 client.
 *
 * Cancellation: when the task is cancelled the round sends `notifications/cancelled` for the
 * call (the tool's signal aborts, so a sandbox run ends) and closes the answer stream, so the
 * task object never waits on a call that will not answer.
 *
 * Not done: the round's client declares no capabilities, so a tool that pushes an elicitation
 * (or sampling) during a task is told the client cannot answer; a round would have to stay
 * open across the question for that. Tools that need input as tasks: `createMcpHandler`.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AnyMcpServer } from "../../common/server-kind";
import { taskRoundSignal, type TaskRoundServer } from "../../tasks/task-rounds";
import { WorkerTransport } from "./worker-transport";

const ROUND_URL = "http://localhost/task-round";
const VERSION = "2025-11-25";

/**
 * The round server of a legacy handler's tasks.
 * @param factory - builds a fresh server for each round (the `tasks.server` option)
 */
export function legacyRoundServer(
  factory: () => AnyMcpServer | Promise<AnyMcpServer>,
): TaskRoundServer {
  return async (request, authInfo) => {
    const signal = taskRoundSignal(request);
    const { params } = (await request.json()) as {
      params: { name: string; arguments?: Record<string, unknown> };
    };
    const transport = new WorkerTransport(await factory(), {});
    const auth = authInfo === undefined ? {} : { authInfo };
    const initialized = await transport.handleRequest(
      post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: VERSION,
          capabilities: {},
          clientInfo: { name: "code-mode-mcp-task", version: "1.0.0" },
        },
      }),
      auth,
    );
    await initialized.body?.cancel();
    const sessionId = initialized.headers.get("mcp-session-id") ?? undefined;
    if (!initialized.ok || sessionId === undefined) return initialized;
    await send(transport, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params };
    const answer = await transport.handleRequest(post(call, sessionId), auth);
    if (signal === undefined || answer.body === null) return answer;
    return endOnAbort(answer, signal, () =>
      send(
        transport,
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 1, reason: "The task was cancelled." },
        },
        sessionId,
        authInfo,
      ),
    );
  };
}

/** The answer, whose stream ends once `signal` aborts (after `onAbort` told the server). */
function endOnAbort(answer: Response, signal: AbortSignal, onAbort: () => Promise<void>): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const stop = new AbortController();
  const abort = () => {
    void onAbort()
      .catch(() => {})
      .finally(() => stop.abort(signal.reason));
  };
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  void answer.body!.pipeTo(writable, { signal: stop.signal }).catch(() => {});
  return new Response(readable, { status: answer.status, headers: answer.headers });
}

async function send(
  transport: WorkerTransport,
  message: unknown,
  sessionId: string,
  authInfo?: AuthInfo,
): Promise<void> {
  const response = await transport.handleRequest(
    post(message, sessionId),
    authInfo === undefined ? {} : { authInfo },
  );
  await response.body?.cancel();
}

function post(message: unknown, sessionId?: string): Request {
  return new Request(ROUND_URL, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(sessionId !== undefined && {
        "mcp-session-id": sessionId,
        "mcp-protocol-version": VERSION,
      }),
    },
    body: JSON.stringify(message),
  });
}
