/**
 * Entry `code-mode-mcp/codemode`: code mode alone (as `@cloudflare/codemode`). One `code` tool over
 * MCP servers, or `search` + `execute` over an OpenAPI spec, and the sandbox executor they run on.
 * Every export here is public API.
 */
export { CodeModeError } from "../errors";
// Sandbox executor (src/executor): run model-written code in Worker Loader isolates, never hanging.
export {
  WorkerLoaderExecutor,
  type WorkerLoaderExecutorOptions,
} from "../executor/loader/worker-loader-executor";
export {
  SharedWorkerExecutor,
  type SharedWorkerExecutorOptions,
} from "../executor/shared-worker/shared-worker-executor";
export { DEFAULT_LIMITS, resolveLimits } from "../executor/limits";
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
  PrestartedRun,
} from "../executor/types";

// Code mode servers.
export { codeMcpServer, type CodeMcpServerOptions } from "./code-mcp-server";
export type {
  CodeUpstream,
  LocalMcpServer,
  UpstreamCaller,
  UpstreamHeaders,
} from "./upstream/upstream-connection";
export { UpstreamToolError } from "./upstream/upstream-result";
export { openApiMcpServer, type OpenApiMcpServerOptions } from "./openapi-mcp-server";
export {
  RequestRefusedError,
  nonReadRequests,
  type ApiRequest,
  type ApiRequestContext,
  type ApiRequestHandler,
  type ApprovalCheck,
} from "./request/api-request";
export type { ApiResult, ApiResponseInit } from "./request/api-response";
// What a request callback that reads a `Response` itself reads it with (`context.responses`).
export type { ResponseBudget } from "./request/response-budget";
// A fetch for request callbacks whose network failures are a `NetworkError` naming the host.
export { namingFetch, type NetworkTarget } from "./request/network-error";
export type { ApiCallbackAnswer } from "./request/api-request";
export { MemoryApprovalLedger, type ApprovalLedger } from "./approvals/approval-ledger";
export { outcomeToToolResult } from "./outcome-result";
export { TOOL_LIMITS } from "./tool-limits";
// Run history hook (`onRun`): what one run did, for the host to store.
export {
  RUN_RECORD_LIMITS,
  type RunCall,
  type RunContext,
  type RunRecord,
  type RunRecorder,
  type RunRequestCall,
  type RunSkillUse,
  type RunTool,
  type RunToolCall,
} from "./runs/run-record";
// Saved skills (docs/skills.md): the stores and the servers' `skills` option.
export { MemorySkillStore } from "./skills/memory-skill-store";
export { SqlSkillStore, type SkillSql } from "./skills/sql-skill-store";
export { DEFAULT_SKILL_LIMITS, type SkillLimits } from "./skills/skill-limits";
export type {
  JsonSchema,
  SkillDraft,
  SkillSignature,
  SkillStore,
  SkillSummary,
  SkillVersionInfo,
  StoredSkill,
} from "./skills/skill-store";
export type { SkillsOptions } from "./skills/skills-options";
export type { SkillFolder } from "./skills/agent-skill-format";
