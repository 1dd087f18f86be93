/**
 * Entry `code-mode-mcp/mcp`: the stateful hosting layer (as `agents/mcp`). `McpAgent` sessions in
 * Durable Objects, the event store for resumable streams, push elicitation, and the legacy
 * (2025-era, sessionful) handler. The stateless handler is re-exported, as `agents/mcp` does, so
 * migrating is a change of package name. Every export here is public API.
 */
export * from "./server";

export { McpAgent, type McpAgentHooks } from "./sessions/agent/mcp-agent";
// 2025-11-25 tasks for McpAgent sessions (SDK v1 `taskStore`), kept in the agent's SQLite.
export { SqlTaskStore } from "./tasks/sql-task-store";
export type { McpAgentServeOptions, McpAgentHandler } from "./sessions/agent/routing";
export type { McpAgentSseOptions } from "./sessions/agent/serve-sse";
export type {
  ElicitationAnswer,
  ElicitOptions,
  FormElicitation,
  UrlElicitation,
} from "./sessions/agent/push-elicitation";
export type { SqlValue } from "./sessions/agent/sql-template";
export {
  DurableObjectEventStore,
  type DurableObjectEventStoreOptions,
  type EventStorage,
} from "./sessions/event-store";
export {
  WorkerTransport,
  DEFAULT_KEEP_ALIVE_MS,
  type SessionRecord,
  type SessionStorage,
  type WorkerTransportOptions,
} from "./sessions/legacy/worker-transport";
export {
  createLegacyMcpHandler,
  type CreateLegacyMcpHandlerOptions,
  type LegacyMcpHandler,
  type LegacyTasksOptions,
} from "./sessions/legacy/create-legacy-mcp-handler";
