/**
 * Shared fixtures for the hosting-layer tests: a small SDK v2 server factory and builders
 * for raw 2026-07-28 and 2025-era HTTP requests.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { acceptedContent, getMcpAuthContext, inputRequired } from "../../../src/index";
import type { McpServerFactoryContext } from "../../../src/index";

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";
export const URL_LOCAL = "http://localhost/mcp";

let instances = 0;

/** A gate a test opens to let a waiting tool continue. */
export interface Gate {
  wait: Promise<void>;
  open: () => void;
}

export function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Hooks a test can set before calling tools of {@link buildServer}. */
export const hooks: { streamingGate?: Gate; holdGate?: Gate } = {};

/**
 * The fixture server: `echo`, `instance` (which server instance answered), `whoami` (auth
 * as seen by the handler), `stream_whoami` (auth read after the response started streaming),
 * `hold` (waits on a gate), `ask_push`, `sample_push` and `roots_push` (2025-style push
 * requests) and `book_table`
 * (a two-round MRTR tool with a sealed price).
 */
export function buildServer(ctx?: McpServerFactoryContext): McpServer {
  const id = ++instances;
  const server = new McpServer(
    { name: "fixture", version: "1.0.0" },
    { capabilities: { logging: {}, tools: { listChanged: true } } },
  );
  server.registerTool(
    "echo",
    { description: "Echo text", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool("instance", { description: "Which instance" }, async () => ({
    content: [{ type: "text", text: String(id) }],
  }));
  server.registerTool("whoami", { description: "Auth seen" }, async (handlerCtx) => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({
          clientId: handlerCtx.http?.authInfo?.clientId ?? null,
          factoryClientId: ctx?.authInfo?.clientId ?? null,
          props: getMcpAuthContext()?.props ?? null,
        }),
      },
    ],
  }));
  server.registerTool("stream_whoami", { description: "Auth while streaming" }, async (c) => {
    await c.mcpReq.log("info", "started");
    await hooks.streamingGate?.wait;
    return { content: [{ type: "text", text: JSON.stringify(getMcpAuthContext() ?? null) }] };
  });
  server.registerTool("progress", { description: "Reports progress, then answers" }, async (c) => {
    const progressToken = c.mcpReq["_meta"]?.progressToken;
    if (progressToken !== undefined) {
      await c.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress: 1, total: 2 },
      });
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerTool("hold", { description: "Wait for the test" }, async () => {
    await hooks.holdGate?.wait;
    return { content: [{ type: "text", text: `held ${id}` }] };
  });
  server.registerTool("ask_push", { description: "2025-style push elicitation" }, async () => {
    const answer = await server.server.elicitInput({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  server.registerTool("sample_push", { description: "2025-style push sampling" }, async () => {
    const answer = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
      maxTokens: 10,
    });
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  server.registerTool("roots_push", { description: "2025-style push roots" }, async () => {
    const answer = await server.server.listRoots();
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  server.registerTool(
    "book_table",
    {
      description: "Book a table (asks to confirm the price)",
      inputSchema: z.object({ guests: z.number() }),
    },
    async ({ guests }, handlerCtx) => {
      const sealed = handlerCtx.mcpReq.requestState<{ price: number }>();
      const confirm = acceptedContent<{ ok: boolean }>(handlerCtx.mcpReq.inputResponses, "confirm");
      if (typeof sealed === "object" && sealed !== null && confirm?.ok === true) {
        return { content: [{ type: "text", text: `booked ${guests} for ${sealed.price}` }] };
      }
      const price = guests * 25;
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Book ${guests} guests for ${price}?`,
            requestedSchema: {
              type: "object",
              properties: { ok: { type: "boolean" } },
              required: ["ok"],
            },
          }),
        },
        requestState: await ctx!.requestState!.mint({ price }, handlerCtx),
      });
    },
  );
  return server;
}

/** The `_meta` envelope a 2026-07-28 client puts on every request. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_META_KEY]: MODERN,
    [CLIENT_INFO_META_KEY]: { name: "raw-test", version: "1.0.0" },
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
  };
}

/** A raw 2026-07-28 JSON-RPC request over HTTP, with the required standard headers. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  init: {
    headers?: Record<string, string>;
    id?: number;
    capabilities?: Record<string, unknown>;
  } = {},
): Request {
  const name =
    typeof params.name === "string"
      ? params.name
      : typeof params.uri === "string"
        ? params.uri
        : undefined;
  return new Request(URL_LOCAL, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(name !== undefined && { "mcp-name": name }),
      ...init.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: init.id ?? 1,
      method,
      params: {
        ...params,
        _meta: { ...(params["_meta"] as object), ...envelope(init.capabilities) },
      },
    }),
  });
}

/** A raw 2025-era JSON-RPC POST (no envelope). */
export function legacyRequest(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL_LOCAL, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Reads a JSON or single-message SSE response body as the JSON-RPC message it carries. */
export async function rpcBody(response: Response): Promise<any> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return JSON.parse(text);
  }
  const data = text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)));
  return data.find((message) => "result" in message || "error" in message);
}

/** A minimal `ExecutionContext` for calling the Worker face in tests. */
export function executionContext(props: Record<string, unknown> = {}): ExecutionContext {
  return {
    waitUntil: () => {},
    passThroughOnException: () => {},
    props,
  } as unknown as ExecutionContext;
}
