/**
 * A remote upstream's `tools/call` result with the own `__proto__` key of its
 * `structuredContent` put back. Over a 2025-era connection the SDK client checks the result
 * with zod, whose record parse of `structuredContent` builds a new object by assignment: a
 * top-level result key named `__proto__` (an API may return any key) is lost there, while
 * deeper values are kept as they arrived (they are `unknown` to the schema) and the 2026-07-28
 * codec keeps the object as it is. So only that one key is put back, from the answer as the
 * transport delivered it, and only when it is missing: the rest of the parsed result (the
 * SDK's checks, its output-schema validation) stays as it is.
 *
 * Which answer belongs to which call: `Client.callTool` assigns the request id inside the SDK,
 * so the transport's `send` learns it from the call's async context (several calls may share
 * one connection and run at once).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { putBackProtoKey } from "./own-proto-key";

type RequestId = string | number;

/** The SDK transport callbacks read here (a connected client's transport has both). */
interface WatchedTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: (message: unknown, extra?: unknown) => void;
}

/** One call's view of its answer: the id it was sent with, the raw `structuredContent`. */
interface CallSlot {
  ids: RequestId[];
  raw?: unknown;
}

const calling = new AsyncLocalStorage<CallSlot>();

/** Per transport: the calls waiting for their answer, by request id. */
const watched = new WeakMap<WatchedTransport, Map<RequestId, CallSlot>>();

/**
 * Runs `call` (a `client.callTool(…)`) and puts back the own `__proto__` key of the result's
 * `structuredContent` when the client's parse dropped it.
 *
 * @param client - the connected client `call` uses
 * @param call - sends the `tools/call` request through `client`
 * @returns the result, with the key put back (in place)
 */
export async function withRawProtoKey(
  client: Client,
  call: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const transport = client.transport as unknown as WatchedTransport | undefined;
  if (transport === undefined) return call();
  let waiting = watched.get(transport);
  if (waiting === undefined) {
    waiting = new Map();
    watched.set(transport, waiting);
    watch(transport, waiting);
  }
  const slot: CallSlot = { ids: [] };
  try {
    const result = await calling.run(slot, call);
    restore(result, slot.raw);
    return result;
  } finally {
    // An answer that never came (aborted, timed out) leaves nothing behind.
    for (const id of slot.ids) waiting.delete(id);
  }
}

/**
 * Wraps the transport's `send` (to note the id of a `tools/call` sent from a watched call) and
 * `onmessage` (to keep that answer's raw `structuredContent`, only when it has the key).
 * Installed once per transport; every message passes unchanged.
 */
function watch(transport: WatchedTransport, waiting: Map<RequestId, CallSlot>): void {
  const send = transport.send;
  const onmessage = transport.onmessage;
  transport.send = (message, options) => {
    const slot = calling.getStore();
    if (slot !== undefined) {
      const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
      if (method === "tools/call" && (typeof id === "string" || typeof id === "number")) {
        slot.ids.push(id);
        waiting.set(id, slot);
      }
    }
    return send.call(transport, message, options);
  };
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
  transport.onmessage = (message, extra) => {
    const { id, result } = (message ?? {}) as { id?: unknown; result?: unknown };
    const slot = typeof id === "string" || typeof id === "number" ? waiting.get(id) : undefined;
    if (slot !== undefined) {
      waiting.delete(id as RequestId);
      const raw = isObject(result)
        ? (result as { structuredContent?: unknown }).structuredContent
        : undefined;
      // Only an answer with the key is kept: the common one costs one own-key check.
      slot.raw = isObject(raw) && Object.hasOwn(raw, "__proto__") ? raw : undefined;
    }
    onmessage?.call(transport, message, extra);
  };
}

function restore(result: CallToolResult, raw: unknown): void {
  const parsed: unknown = result.structuredContent;
  if (!isObject(raw) || !isObject(parsed) || Object.hasOwn(parsed, "__proto__")) return;
  if (Array.isArray(raw) || Array.isArray(parsed)) return;
  putBackProtoKey(parsed, Object.getOwnPropertyDescriptor(raw, "__proto__")?.value, raw);
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
