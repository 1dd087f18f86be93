/**
 * One upstream `tools/call` from a `code` run.
 *
 * A remote upstream is another party: its answer goes through the SDK client's `callTool` (the
 * whole result parsed against the spec's result schema). An `McpServer` in this isolate (an
 * instance or `{ server }`) has already checked its result before sending it: SDK v1 and v2
 * `McpServer`s both validate `structuredContent` against the tool's own output schema in their
 * `tools/call` handler. Checking it again on the client side cost every call a zod parse of the
 * whole result, and, on the one connection that had listed the tools (a shared instance's), a
 * JSON Schema validation that could refuse what the upstream itself accepted: the listed JSON
 * Schema of a zod object says `additionalProperties: false`, while zod accepts (and the server
 * sends) extra keys. So an in-process call is a plain `tools/call` request whose answer is
 * checked only for the shape code mode reads (an object, `content` an array when present), and
 * reaches the sandbox as the upstream sent it, as a per-run connection's answers always did.
 * A remote answer's `structuredContent` gets back a top-level `__proto__` key that the
 * client's 2025-era parse drops (raw-call-result.ts).
 */
import type { CallToolResult, Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { withRawProtoKey } from "./raw-call-result";
import type { UpstreamSession } from "./upstream-connection";

/** The arguments of `Client.callTool`. */
export type CallParams = Parameters<Client["callTool"]>[0];
/** The options of `Client.callTool` (signal, progress). */
export type CallOptions = Parameters<Client["callTool"]>[1];

/** What code mode needs of an in-process upstream's `tools/call` result, and nothing more. */
const IN_PROCESS_RESULT: StandardSchemaV1<unknown, CallToolResult> = {
  "~standard": {
    version: 1,
    vendor: "code-mode-mcp",
    validate(value) {
      const ok =
        typeof value === "object" &&
        value !== null &&
        !Array.isArray(value) &&
        ((value as { content?: unknown }).content === undefined ||
          Array.isArray((value as { content?: unknown }).content));
      return ok
        ? { value: value as CallToolResult }
        : {
            issues: [
              {
                message:
                  "the upstream's tools/call result is not an object with a `content` array; its tool handler must return a CallToolResult",
              },
            ],
          };
    },
  },
};

/**
 * Calls an upstream tool over `session` (see the module comment for what is checked where).
 * @param session - the run's connection to the upstream
 * @param params - the tool's name and arguments (and `_meta`)
 * @param options - abort signal and progress callback
 */
export function callUpstreamTool(
  session: UpstreamSession,
  params: CallParams,
  options: CallOptions,
): Promise<CallToolResult> {
  if (!session.inProcess)
    return withRawProtoKey(
      session.client,
      () => session.client.callTool(params, options) as Promise<CallToolResult>,
    );
  return session.client.request(
    { method: "tools/call", params: params as Record<string, unknown> },
    IN_PROCESS_RESULT,
    options,
  );
}
