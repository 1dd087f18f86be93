/**
 * The tool list as the upstream sent it, to put back what the SDK client's parse drops. The
 * client checks a 2025-era `tools/list` result with zod, whose output is a new object built by
 * assignment: a schema property named `__proto__` (a JSON Schema may name any property) is lost
 * there, and the declaration then says `"__proto__": unknown` where the schema says `string`,
 * while the argument validator lets any value through. Only own `__proto__` keys are put back:
 * everything else of the parsed list (the SDK's codec work, its filtering) stays as it is.
 */
import type { Client, Tool } from "@modelcontextprotocol/client";
import { putBackProtoKey } from "./own-proto-key";

type RequestId = string | number;

/** The SDK transport callbacks read here (a connected client's transport has both). */
interface WatchedTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: (message: unknown, extra?: unknown) => void;
}

/** Raw tools by name, collected while a listing runs. */
export interface RawToolCapture {
  /** The raw tool of that name from the last `tools/list` answer that listed it. */
  get(name: string): Record<string, unknown> | undefined;
  /** Stops watching the client's transport. */
  stop(): void;
}

/** Per transport: the captures now listening (the watch is installed once, never removed). */
const watchers = new WeakMap<WatchedTransport, Set<Map<string, Record<string, unknown>>>>();

/**
 * Collects the raw tools of the `tools/list` answers `client` receives until `stop()`, by name.
 * Only reads: every message passes unchanged.
 *
 * @param client - a connected client
 * @returns the capture
 */
export function captureRawToolList(client: Client): RawToolCapture {
  const transport = client.transport as unknown as WatchedTransport | undefined;
  const byName = new Map<string, Record<string, unknown>>();
  if (transport === undefined) return { get: () => undefined, stop: () => {} };
  let listening = watchers.get(transport);
  if (listening === undefined) {
    listening = new Set();
    watchers.set(transport, listening);
    watch(transport, listening);
  }
  listening.add(byName);
  return {
    get: (name) => byName.get(name),
    stop: () => void listening.delete(byName),
  };
}

/**
 * Wraps the transport's `send` (to note the ids of outgoing `tools/list` requests) and
 * `onmessage` (to hand their answers' tools to every listening capture). Installed once per
 * transport, so concurrent listings on a shared connection never unwrap each other.
 */
function watch(
  transport: WatchedTransport,
  listening: Set<Map<string, Record<string, unknown>>>,
): void {
  const listing = new Set<RequestId>();
  const send = transport.send;
  const onmessage = transport.onmessage;
  transport.send = (message, options) => {
    const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
    if (method === "tools/list" && (typeof id === "string" || typeof id === "number"))
      listing.add(id);
    return send.call(transport, message, options);
  };
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
  transport.onmessage = (message, extra) => {
    const { id, result } = (message ?? {}) as { id?: unknown; result?: { tools?: unknown } };
    if ((typeof id === "string" || typeof id === "number") && listing.delete(id)) {
      const tools = result?.tools;
      if (Array.isArray(tools))
        for (const tool of tools as Record<string, unknown>[])
          if (typeof tool?.name === "string")
            for (const byName of listening) byName.set(tool.name, tool);
    }
    onmessage?.call(transport, message, extra);
  };
}

/**
 * The parsed tool with the own `__proto__` keys of its raw schemas put back (in place).
 *
 * @param tool - a tool as the SDK client parsed it
 * @param raw - the same tool as the upstream sent it, if seen
 * @returns `tool`
 */
export function withRawProtoKeys(tool: Tool, raw: Record<string, unknown> | undefined): Tool {
  if (raw === undefined) return tool;
  restoreProtoKeys(tool.inputSchema, raw.inputSchema, 0);
  if (tool.outputSchema !== undefined) restoreProtoKeys(tool.outputSchema, raw.outputSchema, 0);
  return tool;
}

/** Deep enough for any schema a declaration is made of (the emitter stops earlier). */
const MAX_DEPTH = 64;

function restoreProtoKeys(parsed: unknown, raw: unknown, depth: number): void {
  if (!isObject(parsed) || !isObject(raw) || depth > MAX_DEPTH) return;
  if (Array.isArray(parsed) !== Array.isArray(raw)) return;
  for (const key of Object.keys(raw)) {
    const value = (raw as Record<string, unknown>)[key];
    if (key === "__proto__") {
      if (!Object.hasOwn(parsed, key)) putBackProtoKey(parsed, structuredClone(value), raw);
    } else if (Object.hasOwn(parsed, key)) {
      restoreProtoKeys((parsed as Record<string, unknown>)[key], value, depth + 1);
    }
  }
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
