/**
 * Entry `code-mode-mcp/mcp/server`: the stateless hosting layer (as `agents/mcp/server`). Serve MCP
 * from a Worker with a fresh server per request: Origin/Host guards, CORS, OAuth auth context and
 * multi-round-trip (MRTR) elicitation. Every export here is public API.
 */
export { createMcpHandler, experimental_createMcpHandler } from "./stateless/create-mcp-handler";
export type { SdkV1Server } from "./stateless/shared-v1-server";
export type {
  CreateMcpHandlerOptions,
  McpServerFactory,
  McpServerFactoryContext,
  StatelessMcpHandler,
} from "./stateless/handler-types";
// The names `agents/mcp/server` gives the same types, so migrated type annotations compile.
export type {
  CreateMcpHandlerOptions as CreateStatelessMcpHandlerOptions,
  McpServerFactory as StatelessMcpServerInput,
} from "./stateless/handler-types";
export { DEFAULT_CORS_OPTIONS, type CorsOptions } from "./common/cors";
export { guardRequest, type GuardOptions } from "./common/guards";
export {
  getMcpAuthContext,
  authInfoFromOAuthProps,
  type McpAuthContext,
} from "./common/auth-context";
export { createRequestStateSealer, type RequestStateOptions } from "./stateless/request-state";
export {
  inputRequired,
  acceptedContent,
  inputResponse,
  createRequestStateCodec,
  type InputRequiredSpec,
  type InputResponseView,
  type RequestStateCodec,
} from "./stateless/elicitation";
// MCP tasks (2026-07-28 extension): the task Durable Object and the tool mark behind the `tasks` option.
export { McpTaskStore } from "./tasks/task-store";
export type { TaskInit } from "./tasks/task-record";
export type { TasksOptions } from "./tasks/task-support";
export { setTaskSupport, type TaskSupport, type TaskSupportOptions } from "./tasks/task-tools";
export {
  TASKS_EXTENSION_ID,
  type TaskStatus,
  type TaskView,
  type TaskError,
} from "./tasks/task-wire";
