/**
 * Entry `code-mode-mcp`: the whole public library, grouped by layer. It is the union of the
 * subpath entries (`code-mode-mcp/codemode`, `code-mode-mcp/mcp`, `code-mode-mcp/mcp/server`) plus
 * the pure OpenAPI and declaration tools, so one import serves the typical code-mode Worker: it
 * needs a code mode server (`openApiMcpServer`/`codeMcpServer`), the executor, and a handler
 * (`createMcpHandler`, or `McpAgent` for 2025-era sessions) to serve it. The subpaths exist so
 * code written for `agents/mcp`, `agents/mcp/server` and `@cloudflare/codemode` migrates by a
 * change of package name; test/unit/public-surface.test.ts pins every list and checks the union.
 * Named exports only; nothing internal.
 */

// Errors: the one local error type (wire errors use the MCP SDK's ProtocolError).
export { CodeModeError } from "./errors";

// Sandbox executor (src/executor): run model-written code in Worker Loader isolates, never hanging.
export {
  WorkerLoaderExecutor,
  type WorkerLoaderExecutorOptions,
} from "./executor/worker-loader-executor";
export {
  SharedWorkerExecutor,
  type SharedWorkerExecutorOptions,
} from "./executor/shared-worker-executor";
export { DEFAULT_LIMITS, resolveLimits } from "./executor/limits";
export type {
  Executor,
  ExecuteRequest,
  ExecutionError,
  ExecutionOutcome,
  ExecutionStatus,
  ExecutorLimits,
  HostCallContext,
  HostFunction,
  HostNamespaces,
  LogEntry,
} from "./executor/types";

// Stateless MCP hosting (src/mcp): serve MCP from a Worker, with guards, CORS, auth and MRTR elicitation.
export {
  createMcpHandler,
  experimental_createMcpHandler,
} from "./mcp/stateless/create-mcp-handler";
export type { SdkV1Server } from "./mcp/stateless/shared-v1-server";
export type {
  CreateMcpHandlerOptions,
  McpServerFactory,
  McpServerFactoryContext,
  StatelessMcpHandler,
} from "./mcp/stateless/handler-types";
// The names `agents/mcp/server` gives the same types, so migrated type annotations compile.
export type {
  CreateMcpHandlerOptions as CreateStatelessMcpHandlerOptions,
  McpServerFactory as StatelessMcpServerInput,
} from "./mcp/stateless/handler-types";
export { DEFAULT_CORS_OPTIONS, type CorsOptions } from "./mcp/common/cors";
export { McpTaskStore, type TaskInit } from "./mcp/tasks/task-store";
export { SqlTaskStore } from "./mcp/tasks/sql-task-store";
export type { TasksOptions } from "./mcp/tasks/task-support";
export { setTaskSupport, type TaskSupport, type TaskSupportOptions } from "./mcp/tasks/task-tools";
export {
  TASKS_EXTENSION_ID,
  type TaskStatus,
  type TaskView,
  type TaskError,
} from "./mcp/tasks/task-wire";
export { guardRequest, type GuardOptions } from "./mcp/common/guards";
export {
  getMcpAuthContext,
  authInfoFromOAuthProps,
  type McpAuthContext,
} from "./mcp/common/auth-context";
export { createRequestStateSealer, type RequestStateOptions } from "./mcp/stateless/request-state";
export {
  inputRequired,
  acceptedContent,
  inputResponse,
  createRequestStateCodec,
  type InputRequiredSpec,
  type InputResponseView,
  type RequestStateCodec,
} from "./mcp/stateless/elicitation";

// Stateful MCP (McpAgent, event store, legacy handler): 2025-era sessions in Durable Objects, resumable streams, push elicitation.
export { McpAgent, type McpAgentHooks } from "./mcp/sessions/agent/mcp-agent";
export type { McpAgentServeOptions, McpAgentHandler } from "./mcp/sessions/agent/serve-agent";
export type { McpAgentSseOptions } from "./mcp/sessions/agent/serve-sse";
export type {
  ElicitationAnswer,
  ElicitOptions,
  FormElicitation,
  UrlElicitation,
} from "./mcp/sessions/agent/push-elicitation";
export type { SqlValue } from "./mcp/sessions/agent/sql-template";
export {
  DurableObjectEventStore,
  type DurableObjectEventStoreOptions,
  type EventStorage,
} from "./mcp/sessions/event-store";
export {
  WorkerTransport,
  DEFAULT_KEEP_ALIVE_MS,
  type SessionRecord,
  type SessionStorage,
  type WorkerTransportOptions,
} from "./mcp/sessions/legacy/worker-transport";
export {
  createLegacyMcpHandler,
  type CreateLegacyMcpHandlerOptions,
  type LegacyMcpHandler,
} from "./mcp/sessions/legacy/create-legacy-mcp-handler";

// Code mode servers (src/codemode): one `code` tool over an MCP server, or `search` + `execute` over an OpenAPI spec.
export { codeMcpServer, type CodeMcpServerOptions } from "./codemode/code-mcp-server";
export type { CodeUpstream, LocalMcpServer } from "./codemode/upstream-connection";
export type { UpstreamCaller, UpstreamHeaders } from "./codemode/upstream-caller";
export { UpstreamToolError } from "./codemode/upstream-result";
export { openApiMcpServer, type OpenApiMcpServerOptions } from "./codemode/openapi-mcp-server";
export {
  RequestRefusedError,
  nonReadRequests,
  type ApiRequest,
  type ApiRequestContext,
  type ApiRequestHandler,
  type ApprovalCheck,
} from "./codemode/api-request";
export type { ApiResult, ApiResponseInit } from "./codemode/api-response";
export type { ApiCallbackAnswer } from "./codemode/api-request";
export { MemoryApprovalLedger, type ApprovalLedger } from "./codemode/approval-ledger";
export { outcomeToToolResult } from "./codemode/outcome-result";
export { TOOL_LIMITS } from "./codemode/tool-limits";
export {
  RUN_RECORD_LIMITS,
  type RunCall,
  type RunContext,
  type RunRecord,
  type RunRecorder,
  type RunRequestCall,
  type RunTool,
  type RunToolCall,
} from "./codemode/run-record";

// OpenAPI and declarations (pure): load and index specs, validate requests, emit TypeScript.
export { loadSpec, OpenApiSpec, isCompactSpec, type OperationMatch } from "./openapi/openapi-spec";
export { compileSpec, type CompileSpecOptions } from "./openapi/compile-spec";
export { checkSpec, findSpecProblems, type SpecProblem } from "./openapi/check-spec";
export { validateRequest, type RequestValidation } from "./openapi/validate-request";
export type { CompactSpec, CompactOperation, SpecVersion } from "./openapi/types";
export {
  toolDeclarations,
  type ToolDeclarations,
  type ToolLike,
} from "./declarations/tool-declarations";
export { SpecDeclarations, type OperationDeclaration } from "./declarations/spec-declarations";
