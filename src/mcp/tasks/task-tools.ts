/**
 * Which tools may run as tasks. SDK v2's `registerTool` has no `execution` option, and the
 * 2026-07-28 codec deletes `execution.taskSupport` from `tools/list` (task creation is
 * server-directed in SEP-2663), so the mark lives beside the registered tool instead: a tool
 * keeps its listing and its 2025-era behaviour exactly as before.
 */
import type { McpServer, RegisteredTool, Server } from "@modelcontextprotocol/server";

/**
 * A tool's task support: `"optional"` runs as a task when the client declared the tasks
 * extension (and synchronously otherwise), `"required"` refuses clients that did not declare
 * it (`-32021`), `"forbidden"` never runs as a task.
 */
export type TaskSupport = "required" | "optional" | "forbidden";

/** How a marked tool becomes a task. */
export interface TaskSupportOptions {
  /**
   * Gather input before the task (SEP-2663 "MRTR then escalate"): a call without
   * `inputResponses` runs synchronously, so the tool's first round can ask its questions with
   * `inputRequired(...)`; the call that brings the answers becomes the task, whose first round
   * receives them. Default false: every call of the tool becomes a task.
   */
  inputFirst?: boolean;
}

interface TaskMark extends TaskSupportOptions {
  support: TaskSupport;
}

const marks = new WeakMap<object, TaskMark>();

/**
 * Marks a registered tool as able to run as an MCP task. Takes effect only on a
 * `createMcpHandler` or `createLegacyMcpHandler` with the `tasks` option; elsewhere the tool
 * runs as before. An SDK v1 tool (from `@modelcontextprotocol/sdk`'s `registerTool`) is marked
 * the same way, for `createLegacyMcpHandler`.
 *
 * ```ts
 * setTaskSupport(server.registerTool("report", { ... }, handler), "optional");
 * ```
 * @param tool - what `registerTool` returned
 * @param support - default `"optional"`
 * @param options - see {@link TaskSupportOptions}
 * @returns the same tool
 */
export function setTaskSupport<Tool extends object = RegisteredTool>(
  tool: Tool,
  support: TaskSupport = "optional",
  options: TaskSupportOptions = {},
): Tool {
  marks.set(tool, { support, ...options });
  return tool;
}

/**
 * The task support of a server's tool: the mark set by {@link setTaskSupport}, else the
 * registration's `execution.taskSupport`, else `undefined` (not a task tool).
 * @param server - an SDK v2 server
 * @param name - the tool's name
 */
export function taskSupportOf(
  server: McpServer | Server,
  name: string,
): (TaskSupportOptions & { support: TaskSupport }) | undefined {
  const tools = (server as { _registeredTools?: Record<string, RegisteredTool> })._registeredTools;
  const tool = tools?.[name];
  if (tool === undefined) return undefined;
  const support = tool.execution?.taskSupport;
  return marks.get(tool) ?? (support === undefined ? undefined : { support });
}
