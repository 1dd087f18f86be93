/**
 * Test helpers for MCP tasks: a real SDK v2 client plus the tasks extension's own requester
 * (`@modelcontextprotocol/ext-tasks`), talking HTTP to a handler in-process.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
} from "@modelcontextprotocol/ext-tasks/client";
import { TASKS_EXTENSION_ID, type StatelessMcpHandler } from "../../../src/index";
import { rpcBody, URL_LOCAL } from "./fixtures";

const CAPABILITIES = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION_ID]: {} } };
const CLIENT_INFO = { name: "tasks-test", version: "1.0.0" };

/** The host-owned raw path the tasks requester needs for 2026-07-28 (the SDK codec refuses task results). */
export function rawDispatch(handler: StatelessMcpHandler, clientId?: string): RawClientDispatch {
  let id = 0;
  return async (request) => {
    // The requester hands over `{ method, params }`; the host frames it as a JSON-RPC request.
    const message = { jsonrpc: "2.0", id: ++id, ...(request as object) };
    const body = message as unknown as { method: string; params?: Record<string, unknown> };
    const params = body.params ?? {};
    const name = params.name ?? params.taskId ?? params.uri;
    const response = await handler.fetch(
      new Request(URL_LOCAL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": body.method,
          ...(typeof name === "string" && { "mcp-name": name }),
        },
        body: JSON.stringify(message),
      }),
      clientId === undefined ? undefined : { authInfo: { token: "t", clientId, scopes: [] } },
    );
    const answer = await rpcBody(response);
    return answer.error !== undefined
      ? { kind: "error", error: answer.error }
      : { kind: "result", result: answer.result };
  };
}

/** A fresh client connection plus its tasks session: one "connection" of a user's client. */
export async function connect(
  handler: StatelessMcpHandler,
  options: { person?: "away"; clientId?: string } = {},
) {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: "auto" },
    capabilities: CAPABILITIES,
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  const session = createTaskSessionFromClient(client, {
    endpointId: "tasks-test",
    // "away": the person has not answered yet; the question stays open until this client leaves.
    ...(options.person === "away" && {
      onInputRequest: (_request: unknown, context: { signal?: AbortSignal }) =>
        new Promise<never>((_resolve, reject) =>
          context.signal?.addEventListener("abort", () => reject(new Error("client left"))),
        ),
    }),
    rawDispatch: rawDispatch(handler, options.clientId),
    v2RequestFraming: {
      protocolVersion: "2026-07-28",
      clientInfo: CLIENT_INFO,
      clientCapabilities: CAPABILITIES,
    },
  });
  const close = async () => {
    await session.close();
    await client.close();
  };
  return { client, session, close };
}

export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the task did not reach the expected state: ${JSON.stringify(await read())}`);
}

/** Waits until `task` asks for input: its round has ended, its question open. */
export function untilAsked<V extends { status: string }>(task: { snapshot(): Promise<V> }) {
  return until(
    () => task.snapshot(),
    (view) => view.status === "input_required",
  );
}

/** Waits until `task` has ended: neither working nor waiting for an answer. */
export function untilEnded<V extends { status: string }>(task: { snapshot(): Promise<V> }) {
  return until(
    () => task.snapshot(),
    (view) => view.status !== "working" && view.status !== "input_required",
  );
}

/** The accepted answer to the `go` question the tests' asking tools put. */
export const GO = { go: { action: "accept", content: { ok: true } } } as const;

export const text = (result: unknown) =>
  (result as { content: { text: string }[] }).content[0]!.text;
